package io.elasticgpu.node.draplugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.node.deviceplugin.UnixSockets;
import io.elasticgpu.node.discovery.GpuEvent;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.dra.AllocatedClaim;
import io.elasticgpu.node.dra.ClaimDevice;
import io.elasticgpu.node.dra.ClaimException;
import io.elasticgpu.node.dra.ClaimIsolation;
import io.elasticgpu.node.dra.ClaimPreparation;
import io.elasticgpu.node.dra.ClaimSource;
import io.elasticgpu.node.dra.DraCards;
import io.elasticgpu.node.draplugin.api.Claim;
import io.elasticgpu.node.draplugin.api.DRAPluginGrpc;
import io.elasticgpu.node.draplugin.api.NodePrepareResourceResponse;
import io.elasticgpu.node.draplugin.api.NodePrepareResourcesRequest;
import io.elasticgpu.node.draplugin.api.NodeUnprepareResourcesRequest;
import io.elasticgpu.node.draplugin.health.DRAResourceHealthGrpc;
import io.elasticgpu.node.draplugin.health.HealthStatus;
import io.elasticgpu.node.draplugin.health.NodeWatchResourcesRequest;
import io.elasticgpu.node.draplugin.health.NodeWatchResourcesResponse;
import io.elasticgpu.node.draplugin.registration.InfoRequest;
import io.elasticgpu.node.draplugin.registration.PluginInfo;
import io.elasticgpu.node.draplugin.registration.RegistrationGrpc;
import io.elasticgpu.node.draplugin.registration.RegistrationStatus;
import io.elasticgpu.node.health.CardHealth;
import io.elasticgpu.node.health.HealthPolicy;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DRA plugin as kubelet reaches it: gRPC over real unix sockets, registration first, then prepare and unprepare. */
class DraPluginServerIT {

    @TempDir
    Path dir;

    private final Hardware hw = DraCards.four();
    private final ClaimSource claims = ref -> switch (ref.uid()) {
        case "uid-a" -> AllocatedClaim.of(List.of(new ClaimDevice("gpu", "gpu-1", 1, 4096, 300, Optional.of("s1"))));
        default -> throw new ClaimException("claim %s: not found".formatted(ref));
    };
    private DraPluginServer server;
    private ManagedChannel channel;

    private DraPluginServer start(io.grpc.BindableService... more) {
        ClaimPreparation p = DraCards.preparation(dir, claims, ClaimIsolation.NONE);
        return DraPluginServer.start(
                "gpu.elasticgpu.io", dir.resolve("plugin"), dir.resolve("registry"), new DraPluginService(p), more);
    }

    @Test
    void kubeletWatchingHealthGetsEveryCardAtOnceThenTheOneThatBroke() {
        CardHealth health = new CardHealth(hw.gpus().size(), HealthPolicy.DEFAULT, InstantSource.system());
        try (DraHealthService healthService = new DraHealthService("node-a", hw, health, InstantSource.system())) {
            server = start(healthService);
            channel = UnixSockets.connect(dir.resolve("plugin/dra.sock"));
            Iterator<NodeWatchResourcesResponse> stream = DRAResourceHealthGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(30, java.util.concurrent.TimeUnit.SECONDS)
                    .nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance());

            NodeWatchResourcesResponse first = stream.next();
            assertThat(first.getDevicesList())
                    .extracting(d ->
                            d.getDevice().getPoolName() + "/" + d.getDevice().getDeviceName())
                    .containsExactly("node-a/gpu-0", "node-a/gpu-1", "node-a/gpu-2", "node-a/gpu-3");
            assertThat(first.getDevicesList()).allSatisfy(d -> {
                assertThat(d.getHealth()).isEqualTo(HealthStatus.HEALTHY);
                assertThat(d.getHealthCheckTimeoutSeconds()).isEqualTo(30);
                assertThat(d.getLastUpdatedTime()).isPositive();
            });

            health.onEvent(new GpuEvent.Xid(2, 79));
            healthService.changed();

            NodeWatchResourcesResponse next = stream.next();
            assertThat(next.getDevicesList())
                    .extracting(d -> d.getDevice().getDeviceName() + " " + d.getHealth() + " " + d.getMessage())
                    .containsExactly("gpu-0 HEALTHY ", "gpu-1 HEALTHY ", "gpu-2 UNHEALTHY Xid 79", "gpu-3 HEALTHY ");
        }
    }

    @AfterEach
    void stop() {
        if (channel != null) {
            channel.shutdownNow();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void kubeletFindsADraPluginOfVersionV1AndItsEndpoint() {
        server = start();
        channel = UnixSockets.connect(dir.resolve("registry/gpu.elasticgpu.io-reg.sock"));
        var registration = RegistrationGrpc.newBlockingStub(channel);

        PluginInfo info = registration.getInfo(InfoRequest.getDefaultInstance());
        registration.notifyRegistrationStatus(
                RegistrationStatus.newBuilder().setPluginRegistered(true).build());

        assertThat(info.getType()).isEqualTo("DRAPlugin");
        assertThat(info.getName()).isEqualTo("gpu.elasticgpu.io");
        assertThat(info.getEndpoint()).isEqualTo(dir.resolve("plugin/dra.sock").toString());
        assertThat(info.getSupportedVersionsList()).containsExactly("v1.DRAPlugin");
        assertThat(server.registered()).isTrue();
    }

    @Test
    void eachClaimIsPreparedOrRefusedOnItsOwnAndUnprepareIsIdempotent() {
        server = start();
        channel = UnixSockets.connect(dir.resolve("plugin/dra.sock"));
        var dra = DRAPluginGrpc.newBlockingStub(channel);
        Claim a = Claim.newBuilder()
                .setNamespace("team")
                .setName("a")
                .setUid("uid-a")
                .build();
        Claim gone = Claim.newBuilder()
                .setNamespace("team")
                .setName("gone")
                .setUid("uid-gone")
                .build();

        var prepared = dra.nodePrepareResources(NodePrepareResourcesRequest.newBuilder()
                .addClaims(a)
                .addClaims(gone)
                .build());

        NodePrepareResourceResponse ok = prepared.getClaimsOrThrow("uid-a");
        assertThat(ok.getError()).isEmpty();
        assertThat(ok.getDevicesList()).singleElement().satisfies(d -> {
            assertThat(d.getRequestNamesList()).containsExactly("gpu");
            assertThat(d.getPoolName()).isEqualTo("node-a");
            assertThat(d.getDeviceName()).isEqualTo("gpu-1");
            assertThat(d.getCdiDeviceIdsList()).containsExactly("elasticgpu.io/gpu=uid-a-gpu");
            assertThat(d.getShareId()).isEqualTo("s1");
        });
        assertThat(prepared.getClaimsOrThrow("uid-gone").getError()).isEqualTo("claim team/gone (uid-gone): not found");
        assertThat(dir.resolve("cdi/elasticgpu.io-gpu_uid-a.json")).exists();

        server.close(); // an agent restart between prepare and unprepare
        channel.shutdownNow();
        server = start();
        channel = UnixSockets.connect(dir.resolve("plugin/dra.sock"));
        dra = DRAPluginGrpc.newBlockingStub(channel);
        assertThat(dra.nodePrepareResources(NodePrepareResourcesRequest.newBuilder()
                                .addClaims(a)
                                .build())
                        .getClaimsOrThrow("uid-a"))
                .isEqualTo(ok);
        var unprepared = dra.nodeUnprepareResources(NodeUnprepareResourcesRequest.newBuilder()
                .addClaims(a)
                .addClaims(a)
                .build());

        assertThat(unprepared.getClaimsOrThrow("uid-a").getError()).isEmpty();
        assertThat(dir.resolve("cdi/elasticgpu.io-gpu_uid-a.json")).doesNotExist();
    }

    @Test
    void closingRemovesTheRegistrationSocketSoKubeletDropsTheDriver() {
        server = start();
        server.close();
        server = null;

        assertThat(dir.resolve("registry/gpu.elasticgpu.io-reg.sock")).doesNotExist();
    }
}
