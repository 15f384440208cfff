package io.parcelhub.edge;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutorGroup;

/**
 * ParcelHub's edge API on Netty: resolves a client's region from its IP address and serves the
 * carrier manifest with its ETag.
 *
 * <pre>
 * java -jar edge.jar [--port 8080] [--fixed]      (PORT in the environment also sets the port)
 *   GET /health                      readiness
 *   GET /v1/geo/resolve?ip=A.B.C.D   region of an IP address, asked of the geo directory
 *   GET /v1/manifests/current        the current carrier manifest's ETag and size
 * </pre>
 *
 * --fixed: geo lookups run on a separate executor group instead of the event loop, and the manifest's
 * ETag is computed once per manifest version.
 */
public final class EdgeServer {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
        boolean fixed = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port": port = Integer.parseInt(args[++i]); break;
                case "--fixed": fixed = true; break;
                default: throw new IllegalArgumentException("unknown flag " + args[i] + " (flags: --port N, --fixed)");
            }
        }
        GeoDirectoryStub directory = GeoDirectoryStub.start();
        GeoDirectoryClient geo = new GeoDirectoryClient(directory.address());
        ManifestStore manifests = new ManifestStore(fixed);
        EventExecutorGroup lookupGroup = fixed ? new DefaultEventExecutorGroup(64) : null;

        EventLoopGroup boss = new NioEventLoopGroup(1);
        EventLoopGroup workers = new NioEventLoopGroup();
        Channel server = new ServerBootstrap().group(boss, workers).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ChannelPipeline p = ch.pipeline();
                        p.addLast(new HttpServerCodec());
                        p.addLast(new HttpServerKeepAliveHandler());
                        p.addLast(new HttpObjectAggregator(64 * 1024));
                        p.addLast(new ManifestHandler(manifests));
                        if (lookupGroup != null) {
                            p.addLast(lookupGroup, "geo", new GeoResolveHandler(geo));
                        } else {
                            p.addLast("geo", new GeoResolveHandler(geo));
                        }
                    }
                }).bind(new InetSocketAddress("127.0.0.1", port)).sync().channel();
        System.out.printf("edge listening on 127.0.0.1:%d (fixed=%s, pid %d)%n", port, fixed, ProcessHandle.current().pid());

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            if (lookupGroup != null) {
                lookupGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
            directory.close();
        }, "edge-shutdown"));
        server.closeFuture().sync();
    }
}
