// A JVM for the attach tests: prints "READY <pid>" and sleeps for args[0]
// seconds (default 60), allocating a little so that GC logs have something.
public class Sleeper {
    public static void main(String[] args) throws Exception {
        long secs = args.length > 0 ? Long.parseLong(args[0]) : 60;
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        long end = System.nanoTime() + secs * 1_000_000_000L;
        byte[][] keep = new byte[64][];
        int i = 0;
        while (System.nanoTime() < end) {
            keep[i++ % keep.length] = new byte[64 << 10];
            Thread.sleep(50);
        }
    }
}
