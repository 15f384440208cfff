// Source of Loader.class (javac --release 8 -g:none Loader.java), the class-file fixture.
public class Loader {
    static {
        System.loadLibrary("acme");
    }

    public native int compress(byte[] in);

    static void computed() {
        System.loadLibrary("acme_" + System.getProperty("os.arch"));
    }

    static void absolute(int mode) {
        switch (mode) {
            case 1: Runtime.getRuntime().load("/opt/acme/libacme-x86_64.so"); break;
            case 2: break;
            case 3: break;
            case 100: break;
        }
        switch (mode) {
            case 1: case 2: case 3: case 4: break;
        }
    }
}
