package org.tally.clickstream;

import java.io.File;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.FileHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import org.tally.platform.ServiceMain;

/**
 * Clickstream collector: web pages report page views and clicks to GET /collect?session=..&page=..,
 * and each event is kept in the collector's log (java.util.logging to a file), from which the
 * nightly batch loads them.
 *
 * <pre>java -cp backoffice.jar org.tally.clickstream.CollectorServer [--port 8080] [--fixed] [--log-dir DIR]</pre>
 *
 * --fixed: events reach the file through a queue drained by one background thread.
 */
public final class CollectorServer {
    public static void main(String[] args) throws IOException {
        String logDir = System.getProperty("collector.logDir", System.getProperty("java.io.tmpdir") + "/clickstream");
        ServiceMain svc = ServiceMain.parse("clickstream-collector", args);
        new File(logDir).mkdirs();
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT.%1$tL %4$s %3$s %5$s%n");
        FileHandler file = new FileHandler(logDir + "/events-" + svc.port + ".%g.log", 256L << 20, 2, false);
        file.setFormatter(new SimpleFormatter());
        Handler handler = svc.fixed ? new QueueingHandler(file, 16_384) : file;
        Logger events = Logger.getLogger("org.tally.clickstream.events");
        events.setUseParentHandlers(false);
        events.addHandler(handler);
        events.setLevel(Level.INFO);

        ClickEventRecorder recorder = new ClickEventRecorder(events);
        ExecutorService workers = Executors.newFixedThreadPool(32);
        svc.server.setExecutor(workers);
        svc.server.createContext("/collect", ex -> {
            int n = recorder.record(ServiceMain.param(ex, "session", "s-0"), ServiceMain.param(ex, "page", "/"),
                    ServiceMain.param(ex, "referrer", ""), ex.getRequestHeaders().getFirst("User-Agent"));
            ServiceMain.reply(ex, 202, "{\"accepted\":" + n + "}");
        });
        svc.serve("clickstream-collector", () -> {
            workers.shutdown();
            handler.close();
        });
    }
}
