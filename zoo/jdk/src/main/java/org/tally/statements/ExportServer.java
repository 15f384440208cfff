package org.tally.statements;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.tally.platform.ServiceMain;

/**
 * Account statements: GET /statements/export?account=..&months=12 renders the statement (CSV) and
 * keeps it for download for a while; the answer says how big it is and where to fetch it
 * (GET /statements/download/ID).
 *
 * <pre>java -Xmx160m -cp backoffice.jar org.tally.statements.ExportServer [--port 8080] [--fixed]</pre>
 *
 * --fixed: the statement is rendered into and kept as 64 KiB chunks.
 */
public final class ExportServer {
    public static void main(String[] args) throws IOException {
        ServiceMain svc = ServiceMain.parse("statement-export", args);
        StatementExporter exporter = new StatementExporter(svc.fixed);
        DownloadCache cache = new DownloadCache(12);
        ExecutorService workers = Executors.newFixedThreadPool(8);
        svc.server.setExecutor(workers);
        svc.server.createContext("/statements/export", ex -> {
            String account = ServiceMain.param(ex, "account", "DE44500105175407324931");
            int months = Integer.parseInt(ServiceMain.param(ex, "months", "12"));
            StatementExporter.Export export = exporter.render(account, months);
            String id = cache.put(export);
            ServiceMain.reply(ex, 200, "{\"download\":\"/statements/download/" + id + "\",\"bytes\":" + export.size() + "}");
        });
        svc.server.createContext("/statements/download/", ex -> {
            String id = ex.getRequestURI().getPath().substring("/statements/download/".length());
            StatementExporter.Export export = cache.get(id);
            if (export == null) {
                ServiceMain.reply(ex, 404, "{\"error\":\"expired or unknown statement\"}");
                return;
            }
            ex.getResponseHeaders().set("Content-Type", "text/csv");
            ex.sendResponseHeaders(200, export.size());
            try (OutputStream out = ex.getResponseBody()) {
                export.writeTo(out);
            }
        });
        svc.serve("statement-export", workers::shutdownNow);
    }
}
