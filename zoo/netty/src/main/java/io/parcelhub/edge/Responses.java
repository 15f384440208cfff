package io.parcelhub.edge;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

final class Responses {
    private Responses() {}

    static void send(ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus status, String body) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.UTF_8)));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        HttpUtil.setContentLength(res, res.content().readableBytes());
        HttpUtil.setKeepAlive(res, HttpUtil.isKeepAlive(req));
        ctx.writeAndFlush(res);
    }
}
