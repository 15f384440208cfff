// IdleForkJoin: a ForkJoin-heavy application at rest. At start it sums a few million numbers
// with parallel streams (the common pool), runs a RecursiveTask on its own ForkJoinPool of 4
// ("report-fj-N") and a few CompletableFuture.supplyAsync stages; then it waits for its next
// batch (main in Thread.sleep). The pools' workers park waiting for work until their
// keep-alive ends (60 s): idle, not stuck.
// Run: java IdleForkJoin.java [seconds-to-live]; prints READY <pid> once the work is done.
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.*;

public class IdleForkJoin {
    static final class Sum extends RecursiveTask<Long> {
        final long[] a; final int lo, hi;
        Sum(long[] a, int lo, int hi) { this.a = a; this.lo = lo; this.hi = hi; }
        protected Long compute() {
            if (hi - lo < 10_000) {
                long s = 0;
                for (int i = lo; i < hi; i++) s += a[i] * a[i] % 7;
                return s;
            }
            int mid = (lo + hi) >>> 1;
            Sum left = new Sum(a, lo, mid);
            left.fork();
            return new Sum(a, mid, hi).compute() + left.join();
        }
    }

    public static void main(String[] args) throws Exception {
        int ttl = args.length > 0 ? Integer.parseInt(args[0]) : 120;
        Thread killer = new Thread(() -> { try { Thread.sleep(ttl * 1000L); } catch (InterruptedException e) { } System.exit(0); }, "ttl");
        killer.setDaemon(true); killer.start();

        long total = 0;
        for (int round = 0; round < 5; round++) {
            total += LongStream.range(0, 5_000_000).parallel().map(x -> x * x % 13).sum();
            total += IntStream.range(0, 200_000).parallel().mapToObj(Integer::toString).collect(Collectors.joining()).length();
        }
        AtomicInteger n = new AtomicInteger();
        ForkJoinPool pool = new ForkJoinPool(4, p -> {
            ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
            t.setName("report-fj-" + n.incrementAndGet());
            return t;
        }, null, false);
        long[] a = LongStream.range(0, 2_000_000).toArray();
        total += pool.invoke(new Sum(a, 0, a.length));
        List<CompletableFuture<Integer>> fs = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            int k = i;
            fs.add(CompletableFuture.supplyAsync(() -> Integer.toBinaryString(k).length()));
        }
        for (CompletableFuture<Integer> f : fs) total += f.get();
        System.out.println("total " + total);
        Thread.sleep(500); // let every worker go back to waiting
        System.out.println("READY " + ProcessHandle.current().pid());
        Thread.sleep(ttl * 1000L);
    }
}
