package org.tally.ledger;

import java.io.File;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.tally.platform.ServiceMain;

/**
 * Wallet ledger: GET /wallet/credit?wallet=..&cents=.. books a credit; the answer is sent only once
 * the booking is durable in the ledger file.
 *
 * <pre>java -cp backoffice.jar org.tally.ledger.LedgerServer [--port 8080] [--fixed]   (-Dledger.dir=DIR)</pre>
 *
 * --fixed: group commit: bookings are appended under the lock and one "ledger-sync" thread forces
 * them outside it, each force covering every booking appended before it.
 */
public final class LedgerServer {
    public static void main(String[] args) throws IOException {
        ServiceMain svc = ServiceMain.parse("wallet-ledger", args);
        File dir = new File(System.getProperty("ledger.dir", System.getProperty("java.io.tmpdir") + "/wallet-ledger"));
        dir.mkdirs();
        LedgerFile ledger = new LedgerFile(new File(dir, "ledger-" + svc.port + ".dat").toPath(), svc.fixed);
        ExecutorService workers = Executors.newFixedThreadPool(32);
        svc.server.setExecutor(workers);
        svc.server.createContext("/wallet/credit", ex -> {
            String wallet = ServiceMain.param(ex, "wallet", "w-1");
            long cents = Long.parseLong(ServiceMain.param(ex, "cents", "500"));
            long seq = ledger.book(wallet, cents);
            ServiceMain.reply(ex, 200, "{\"wallet\":\"" + wallet + "\",\"booking\":" + seq + "}");
        });
        svc.serve("wallet-ledger", () -> {
            workers.shutdownNow();
            ledger.close();
        });
    }
}
