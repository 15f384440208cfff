// A service whose "after" variant calls scoreA twice as often per request:
// per request, the differential flame graph must show scoreA grown and
// parse unchanged. Each method burns the CPU in its own loop, so each is
// the leaf (self) of its samples.
public class Diff {
  static volatile double sink;
  static double scoreA() { double x = 0; for (int i = 1; i < 40000; i++) x += Math.sqrt(i) / i; return x; }
  static double parse() { double x = 0; for (int i = 1; i < 40000; i++) x += Math.sqrt(i + 1) / i; return x; }
  static void request(int aCalls) { double s = parse(); for (int i = 0; i < aCalls; i++) s += scoreA(); sink = s; }
  public static void main(String[] args) throws Exception {
    int aCalls = args[0].equals("after") ? 2 : 1;
    long end = System.currentTimeMillis() + Long.parseLong(args[1]);
    long n = 0;
    while (System.currentTimeMillis() < end) { request(aCalls); n++; }
    System.out.println("requests " + n);
  }
}
