package io.parcelhub.edge;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;

/** GET /health and GET /v1/manifests/current; everything else goes on down the pipeline. */
final class ManifestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final ManifestStore manifests;

    ManifestHandler(ManifestStore manifests) {
        super(false);
        this.manifests = manifests;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        String uri = req.uri();
        if (uri.equals("/health")) {
            Responses.send(ctx, req, HttpResponseStatus.OK, "{\"status\":\"ok\"}");
            req.release();
        } else if (uri.startsWith("/v1/manifests/current")) {
            ManifestStore.Manifest m = manifests.current();
            Responses.send(ctx, req, HttpResponseStatus.OK,
                    "{\"version\":" + m.version + ",\"etag\":\"" + manifests.etag(m) + "\",\"bytes\":" + m.body.length + "}");
            req.release();
        } else {
            ctx.fireChannelRead(req);
        }
    }
}
