package io.parcelhub.edge;

import java.io.IOException;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;

/** GET /v1/geo/resolve?ip=...: the region of an IP address, from the geo directory. */
final class GeoResolveHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final GeoDirectoryClient directory;

    GeoResolveHandler(GeoDirectoryClient directory) {
        this.directory = directory;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        QueryStringDecoder q = new QueryStringDecoder(req.uri());
        if (!q.path().equals("/v1/geo/resolve")) {
            Responses.send(ctx, req, HttpResponseStatus.NOT_FOUND, "{\"error\":\"not found\"}");
            return;
        }
        String ip = q.parameters().getOrDefault("ip", java.util.List.of("203.0.113.7")).get(0);
        try {
            String region = directory.regionOf(ip);
            Responses.send(ctx, req, HttpResponseStatus.OK, "{\"ip\":\"" + ip + "\",\"region\":\"" + region + "\"}");
        } catch (IOException e) {
            Responses.send(ctx, req, HttpResponseStatus.BAD_GATEWAY, "{\"error\":\"geo directory: " + e.getMessage() + "\"}");
        }
    }
}
