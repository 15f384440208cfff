package org.tally.credit;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.tally.platform.ServiceMain;

/**
 * Credit checks for the order desk: GET /credit/check?customer=..&amount=.. asks the credit bureau for
 * the customer's score and decides the credit line.
 *
 * <pre>java -cp backoffice.jar org.tally.credit.CreditCheckServer [--port 8080] [--fixed]</pre>
 *
 * The server is created without an executor, so every exchange runs on the server's one dispatcher
 * thread. --fixed: a pool of 64 threads runs the exchanges.
 */
public final class CreditCheckServer {
    public static void main(String[] args) throws IOException {
        ServiceMain svc = ServiceMain.parse("credit-check", args);
        BureauStub bureau = BureauStub.start();
        BureauClient client = new BureauClient(bureau.baseUrl());
        ExecutorService workers = svc.fixed ? Executors.newFixedThreadPool(64) : null;
        svc.server.setExecutor(workers);
        svc.server.createContext("/credit/check", ex -> {
            String customer = ServiceMain.param(ex, "customer", "C-100042");
            long amount = Long.parseLong(ServiceMain.param(ex, "amount", "2500"));
            int score = client.score(customer);
            boolean approved = score >= 600 && amount <= score * 20L;
            ServiceMain.reply(ex, 200, "{\"customer\":\"" + customer + "\",\"score\":" + score + ",\"approved\":" + approved + "}");
        });
        svc.serve("credit-check", () -> {
            if (workers != null) {
                workers.shutdownNow();
            }
            bureau.stop();
        });
    }
}
