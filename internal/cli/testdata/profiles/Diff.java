// A service whose "after" variant calls scoreA twice as often per request:
// the differential flame graph must show scoreA grown, parse unchanged.
public class Diff {
  static volatile double sink;
  static double burn(int n) { double x = 0; for (int i = 1; i < n; i++) x += Math.sqrt(i) / i; return x; }
  static double scoreA() { return burn(40000); }
  static double parse() { return burn(40000); }
  static void request(int aCalls) { double s = parse(); for (int i = 0; i < aCalls; i++) s += scoreA(); sink = s; }
  public static void main(String[] args) throws Exception {
    int aCalls = args[0].equals("after") ? 2 : 1;
    long end = System.currentTimeMillis() + Long.parseLong(args[1]);
    long n = 0;
    while (System.currentTimeMillis() < end) { request(aCalls); n++; }
    System.out.println("requests " + n);
  }
}
