package org.tally.credit;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/** The credit bureau's score API over HTTP (keep-alive connections, as HttpURLConnection pools them). */
final class BureauClient {
    private final String baseUrl;

    BureauClient(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    int score(String customer) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL(baseUrl + "/v2/score?customer=" + customer).openConnection();
        c.setConnectTimeout(2000);
        c.setReadTimeout(5000);
        int status = c.getResponseCode();
        try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
            String body = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (status != 200) {
                throw new IOException("bureau answered " + status + ": " + body);
            }
            return Integer.parseInt(body);
        }
    }
}
