package mechanism

// Pools: request threads waiting for a resource a fixed-size pool hands out.
func poolEntries() []Entry {
	return []Entry{
		{
			ID: "mech.pool.jdbc-exhausted", Family: Pool,
			Name: T("JDBC connection pool exhausted: request threads wait for a connection", "JDBC 连接池耗尽：请求线程等待连接"),
			Mechanism: T("Every connection is lent to a thread running a statement; the other request threads park in the pool's borrow until one is returned, so throughput is the pool size divided by the time a connection is held.",
				"所有连接都借给了正在执行语句的线程；其他请求线程在连接池的借用处挂起直到有连接归还，吞吐量等于连接池大小除以每次占用连接的时间。"),
			Tradeoff: T("More connections load the database more: size the pool to what the database serves in parallel, and shorten the time each connection is held first.",
				"更多连接会加重数据库负担：按数据库能并行处理的能力设置连接池大小，并先缩短每次占用连接的时间。"),
			Sig: Signature{States: []State{Parked, Blocked, Waiting}, Frames: []string{"com.zaxxer.hikari.pool.HikariPool.getConnection",
				"com.zaxxer.hikari.util.ConcurrentBag.borrow", "org.apache.commons.dbcp2.", "org.apache.commons.pool2.impl.GenericObjectPool.borrowObject",
				"org.apache.commons.dbcp.", "org.apache.commons.pool.impl.GenericObjectPool.borrowObject",
				"com.mchange.v2.resourcepool.BasicResourcePool.awaitAvailable", "com.alibaba.druid.pool.DruidDataSource.takeLast",
				"com.alibaba.druid.pool.DruidDataSource.pollLast", "org.apache.tomcat.jdbc.pool.ConnectionPool.borrowConnection"},
				Holders: []string{"java.sql.", "javax.sql.", "org.h2.", "com.mysql.", "org.postgresql.", "oracle.jdbc.", "org.mariadb.", "com.microsoft.sqlserver.",
					"com.zaxxer.hikari.pool.ProxyStatement", "com.zaxxer.hikari.pool.ProxyPreparedStatement", "com.zaxxer.hikari.pool.HikariProxy",
					"org.apache.commons.dbcp2.DelegatingStatement", "org.apache.commons.dbcp2.DelegatingPreparedStatement", "com.alibaba.druid.pool.DruidPooledPreparedStatement"}},
			Fixes: []Fix{
				{Framework: "hikari", Do: T("Shorten what runs while a connection is held (the slow statement, remote calls inside a transaction), then size spring.datasource.hikari.maximum-pool-size (HikariCP maximumPoolSize) to the concurrency the database serves; set leakDetectionThreshold to find connections held too long.",
					"先缩短持有连接期间执行的内容（慢语句、事务中的远程调用），再按数据库能服务的并发设置 spring.datasource.hikari.maximum-pool-size（HikariCP maximumPoolSize）；设置 leakDetectionThreshold 以发现长时间占用的连接。"),
					Apply: "spring.datasource.hikari.maximum-pool-size=32"},
				{Do: T("Shorten what runs while a connection is held, then raise the pool's maximum (DBCP2 maxTotal, c3p0 maxPoolSize, Druid maxActive) to the concurrency the database serves.",
					"先缩短持有连接期间执行的内容，再把连接池上限（DBCP2 maxTotal、c3p0 maxPoolSize、Druid maxActive）提高到数据库能服务的并发。")},
			},
			References: []string{refHikari},
		},
	}
}
