package io.elasticgpu.node.draplugin;

import io.elasticgpu.node.dra.ClaimException;
import io.elasticgpu.node.dra.ClaimPreparation;
import io.elasticgpu.node.dra.ClaimRef;
import io.elasticgpu.node.dra.PreparedDevice;
import io.elasticgpu.node.draplugin.api.Claim;
import io.elasticgpu.node.draplugin.api.DRAPluginGrpc;
import io.elasticgpu.node.draplugin.api.Device;
import io.elasticgpu.node.draplugin.api.NodePrepareResourceResponse;
import io.elasticgpu.node.draplugin.api.NodePrepareResourcesRequest;
import io.elasticgpu.node.draplugin.api.NodePrepareResourcesResponse;
import io.elasticgpu.node.draplugin.api.NodeUnprepareResourceResponse;
import io.elasticgpu.node.draplugin.api.NodeUnprepareResourcesRequest;
import io.elasticgpu.node.draplugin.api.NodeUnprepareResourcesResponse;
import io.grpc.stub.StreamObserver;
import java.io.UncheckedIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code DRAPlugin} service. Each claim of a call succeeds or fails on its own: a failure is that claim's
 * {@code error} (kubelet retries it and reports it in the pod's events), never the whole call's status.
 */
public final class DraPluginService extends DRAPluginGrpc.DRAPluginImplBase {

    private static final Logger LOG = LoggerFactory.getLogger(DraPluginService.class);

    private final ClaimPreparation preparation;

    public DraPluginService(ClaimPreparation preparation) {
        this.preparation = preparation;
    }

    @Override
    public void nodePrepareResources(
            NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> out) {
        NodePrepareResourcesResponse.Builder b = NodePrepareResourcesResponse.newBuilder();
        for (Claim c : request.getClaimsList()) {
            b.putClaims(c.getUid(), prepare(c));
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void nodeUnprepareResources(
            NodeUnprepareResourcesRequest request, StreamObserver<NodeUnprepareResourcesResponse> out) {
        NodeUnprepareResourcesResponse.Builder b = NodeUnprepareResourcesResponse.newBuilder();
        for (Claim c : request.getClaimsList()) {
            NodeUnprepareResourceResponse.Builder r = NodeUnprepareResourceResponse.newBuilder();
            try {
                preparation.unprepare(ref(c));
            } catch (IllegalArgumentException | UncheckedIOException e) {
                r.setError(e.getMessage());
                LOG.warn("unprepare {}: {}", c.getUid(), e.getMessage());
            }
            b.putClaims(c.getUid(), r.build());
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    private NodePrepareResourceResponse prepare(Claim c) {
        NodePrepareResourceResponse.Builder r = NodePrepareResourceResponse.newBuilder();
        try {
            for (PreparedDevice d : preparation.prepare(ref(c))) {
                Device.Builder device = Device.newBuilder()
                        .addAllRequestNames(d.requestNames())
                        .setPoolName(d.pool())
                        .setDeviceName(d.device())
                        .addAllCdiDeviceIds(d.cdiDeviceIds());
                if (!d.shareId().isEmpty()) {
                    device.setShareId(d.shareId());
                }
                r.addDevices(device);
            }
        } catch (ClaimException | IllegalArgumentException | UncheckedIOException e) {
            r.clearDevices().setError(e.getMessage());
            LOG.warn("prepare {}/{}: {}", c.getNamespace(), c.getName(), e.getMessage());
        }
        return r.build();
    }

    private static ClaimRef ref(Claim c) {
        return new ClaimRef(c.getNamespace(), c.getName(), c.getUid());
    }
}
