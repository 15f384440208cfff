// CPU in burn, allocation in allocate, and four threads queueing on one
// monitor whose holder sleeps: each profile kind has its own culprit.
public class Mixed {
  static final Object gate = new Object();
  static volatile Object sink;
  static double burn(int n) { double x = 0; for (int i = 1; i < n; i++) x += Math.sqrt(i) / i; return x; }
  static void allocate() { for (int i = 0; i < 300; i++) sink = new byte[4096]; }
  static void holdGate() throws Exception { synchronized (gate) { Thread.sleep(20); } }
  public static void main(String[] a) throws Exception {
    long end = System.currentTimeMillis() + 2500;
    for (int t = 0; t < 4; t++) {
      new Thread(() -> { try { while (System.currentTimeMillis() < end) holdGate(); } catch (Exception e) {} }, "waiter-" + t).start();
    }
    double s = 0;
    while (System.currentTimeMillis() < end) { s += burn(100000); allocate(); }
    System.out.println(s > 0);
  }
}
