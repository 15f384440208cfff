package com.example.zoo;

/**
 * Java functions of the pool-starvation scenario's H2 database (CREATE ALIAS). H2 calls them
 * inside the query, on the thread that holds the JDBC connection.
 */
public final class StockFunctions {
    private StockFunctions() {}

    /**
     * SQL function SLOW_STOCK(sku, ms): the statement spends {@code ms} milliseconds in the
     * database, as a slow SQL on a loaded database would, then returns the stock of the SKU.
     */
    public static int slowStock(String sku, int ms) throws InterruptedException {
        Thread.sleep(ms);
        return 10 + Math.floorMod(sku.hashCode(), 90);
    }
}
