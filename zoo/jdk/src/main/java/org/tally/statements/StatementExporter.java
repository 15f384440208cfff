package org.tally.statements;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/** Renders an account statement: one CSV line per booking of the period. */
final class StatementExporter {
    /** A rendered statement: either one array or a list of chunks. */
    static final class Export {
        final byte[] whole;
        final List<byte[]> chunks;
        final int size;

        Export(byte[] whole, List<byte[]> chunks, int size) {
            this.whole = whole;
            this.chunks = chunks;
            this.size = size;
        }

        int size() {
            return size;
        }

        void writeTo(OutputStream out) throws IOException {
            if (whole != null) {
                out.write(whole);
                return;
            }
            for (int i = 0, left = size; i < chunks.size(); i++) {
                byte[] c = chunks.get(i);
                out.write(c, 0, Math.min(c.length, left));
                left -= c.length;
            }
        }
    }

    private static final int BOOKINGS_PER_MONTH = 3_000;
    private static final String[] COUNTERPARTIES = {"ACME Logistics GmbH", "Stadtwerke Nord", "Cafe Central", "Online Retail EU SARL",
            "Payroll", "Insurance Mutual", "Telecom Plus", "Rent Property Mgmt"};

    private final boolean chunked;

    StatementExporter(boolean chunked) {
        this.chunked = chunked;
    }

    Export render(String account, int months) throws IOException {
        if (chunked) {
            ChunkedOutput out = new ChunkedOutput();
            writeBookings(out, account, months);
            return new Export(null, out.chunks, out.size);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeBookings(out, account, months);
        byte[] csv = out.toByteArray();
        return new Export(csv, null, csv.length);
    }

    private static void writeBookings(OutputStream out, String account, int months) throws IOException {
        LocalDate start = LocalDate.of(2026, 1, 1);
        long balance = 1_250_000;
        out.write(("account;" + account + "\nbooking_date;value_date;counterparty;reference;amount_cents;balance_cents\n").getBytes(StandardCharsets.UTF_8));
        StringBuilder line = new StringBuilder(160);
        String[] days = new String[29];
        for (int m = 0; m < months; m++) {
            LocalDate first = start.plusMonths(m);
            for (int d = 0; d < days.length; d++) {
                days[d] = first.plusDays(d).toString();
            }
            for (int i = 0; i < BOOKINGS_PER_MONTH; i++) {
                long amount = ((long) (account.hashCode() ^ (m * 7919 + i * 104729)) % 250_000) - 90_000;
                balance += amount;
                line.setLength(0);
                line.append(days[i % 28]).append(';').append(days[i % 28 + 1]).append(';').append(COUNTERPARTIES[i % COUNTERPARTIES.length])
                        .append(";RF").append(m).append('-').append(i).append(';').append(amount).append(';').append(balance).append('\n');
                out.write(line.toString().getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /** An output stream of 64 KiB chunks: never one large array. */
    static final class ChunkedOutput extends OutputStream {
        private static final int CHUNK = 64 * 1024;
        final List<byte[]> chunks = new ArrayList<>();
        private byte[] cur;
        private int pos = CHUNK;
        int size;

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            while (len > 0) {
                if (pos == CHUNK) {
                    cur = new byte[CHUNK];
                    chunks.add(cur);
                    pos = 0;
                }
                int n = Math.min(len, CHUNK - pos);
                System.arraycopy(b, off, cur, pos, n);
                pos += n;
                off += n;
                len -= n;
                size += n;
            }
        }
    }
}
