package org.tally.fx;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.tally.platform.ServiceMain;

/**
 * FX rates for the invoicing screens: GET /rates/convert?from=EUR&to=USD&amount=100.
 *
 * <pre>java -cp backoffice.jar org.tally.fx.RateServer [--port 8080] [--fixed]</pre>
 *
 * --fixed: the rate book's loader is started (see RateBook).
 */
public final class RateServer {
    public static void main(String[] args) throws IOException {
        ServiceMain svc = ServiceMain.parse("fx-rates", args);
        RateBook book = new RateBook();
        if (svc.fixed) {
            book.startLoading();
        }
        ExecutorService workers = Executors.newFixedThreadPool(64);
        svc.server.setExecutor(workers);
        svc.server.createContext("/rates/convert", ex -> {
            String from = ServiceMain.param(ex, "from", "EUR");
            String to = ServiceMain.param(ex, "to", "USD");
            double amount = Double.parseDouble(ServiceMain.param(ex, "amount", "100"));
            RateBook.Rates rates;
            try {
                rates = book.current();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ServiceMain.reply(ex, 503, "{\"error\":\"interrupted\"}");
                return;
            }
            double converted = amount / rates.perEuro(from) * rates.perEuro(to);
            ServiceMain.reply(ex, 200, String.format("{\"from\":\"%s\",\"to\":\"%s\",\"amount\":%.2f,\"source\":\"%s\"}",
                    from, to, converted, rates.source));
        });
        svc.serve("fx-rates", workers::shutdownNow);
    }
}
