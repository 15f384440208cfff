// Alloc is an allocation-heavy loop used to produce real GC logs for the
// gclog parser tests. It allocates short-lived garbage, keeps a sliding
// window of survivors (so objects get promoted), makes an occasional large
// array (humongous in G1 with a small heap) and calls System.gc() once, so
// every collector logs young, old/full and explicit collections.
//
// Usage: java -Xmx128m -Xlog:gc*:file=gc.log Alloc.java [seconds]
public class Alloc {
    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 3;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        Object[] window = new Object[20_000];
        long n = 0, sink = 0;
        boolean explicit = false;
        while (System.nanoTime() < end) {
            byte[] b = new byte[64 + (int) (n % 512)];
            sink += b.length;
            if (n % 8 == 0) {
                window[(int) ((n / 8) % window.length)] = new long[32];
            }
            if (n % 200_000 == 0) {
                byte[] big = new byte[3 << 20];
                sink += big.length;
            }
            if (!explicit && System.nanoTime() > end - seconds * 500_000_000L) {
                System.gc();
                explicit = true;
            }
            n++;
        }
        System.out.println("allocated " + sink + " bytes in " + n + " objects");
    }
}
