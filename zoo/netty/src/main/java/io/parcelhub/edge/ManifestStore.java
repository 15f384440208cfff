package io.parcelhub.edge;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The carrier manifest: every parcel of the day's line-haul with its route, published by the
 * planning system as one document (~2 MB). Clients poll it with its ETag.
 */
final class ManifestStore {
    static final class Manifest {
        final long version;
        final byte[] body;

        Manifest(long version, byte[] body) {
            this.version = version;
            this.body = body;
        }
    }

    private final boolean cacheEtags;
    private final ConcurrentHashMap<Long, String> etags = new ConcurrentHashMap<>();
    private volatile Manifest current;

    ManifestStore(boolean cacheEtags) {
        this.cacheEtags = cacheEtags;
        StringBuilder sb = new StringBuilder(2 << 20);
        for (int i = 0; sb.length() < 2_000_000; i++) {
            sb.append("{\"parcel\":\"PH").append(100_000_000 + i).append("\",\"hub\":\"").append(HUBS[i % HUBS.length])
                    .append("\",\"route\":").append(i % 977).append(",\"weight_g\":").append(150 + (i * 37) % 24_000).append("}\n");
        }
        current = new Manifest(1, sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static final String[] HUBS = {"AMS", "FRA", "MAD", "WAW", "LYS", "MXP", "PRG", "VIE"};

    Manifest current() {
        return current;
    }

    String etag(Manifest m) {
        return cacheEtags ? etags.computeIfAbsent(m.version, v -> digest(m.body)) : digest(m.body);
    }

    /** A strong ETag: the SHA-256 of the body. */
    static String digest(byte[] body) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
