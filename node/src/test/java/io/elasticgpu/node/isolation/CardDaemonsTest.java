package io.elasticgpu.node.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-card layout: every share of a card is served by the card's one daemon, side by side, each share's limits in
 * its containers' environment (where the pod can change them: this layout says so, rather than claim a hold it does not
 * have); the card's daemon ends with the card's last share, and a restarted agent still knows which shares need it.
 */
class CardDaemonsTest {

    private static final String CARD0 = "GPU-00000000-1111-2222-3333-444444444444";
    private static final String CARD1 = "GPU-11111111-1111-2222-3333-444444444444";

    @TempDir
    Path dir;

    private Path root;
    private MpsControl control;
    private Hardware hardware;

    @BeforeEach
    void start() {
        root = dir.resolve("mps");
        control = new MpsControl(MpsStandIn.install(dir.resolve("bin")).program(), false, "", Duration.ofSeconds(10));
        hardware = new Hardware("580.159.04", List.of(gpu(0, CARD0), gpu(1, CARD1)), Topology.uniform(2, Link.UNKNOWN));
    }

    @AfterEach
    void end() {
        MpsStandIn.killAll(root);
    }

    private static Gpu gpu(int index, String uuid) {
        return new Gpu(
                index, uuid, "NVIDIA H100 80GB HBM3", 81559, "00000000:0%d:00.0".formatted(index), index, 0, false);
    }

    private CardDaemons open() {
        return new CardDaemons(
                MpsDaemons.open(control, root, InstantSource.system(), MpsDaemons.Listener.NONE), hardware);
    }

    private static MpsShare share(String key, String card, long mib, int percent) {
        return new MpsShare(
                key, List.of(card), new MpsLimits(List.of(mib), percent, 1), "ns/" + key + "/main", key, 64);
    }

    @Test
    void theSharesOfOneCardAreServedByTheCardsOneDaemonWithTheirLimitsInTheirEnvironment() {
        CardDaemons layout = open();

        MpsAccess a = layout.hold(share("dp-a", CARD0, 19456, 30));
        MpsAccess b = layout.hold(share("dp-b", CARD0, 9216, 50));

        assertThat(layout.daemons()).isEqualTo(1);
        assertThat(a.mounts()).isEqualTo(b.mounts()).hasSize(1); // the card's pipe; each pod keeps its own /dev/shm
        assertThat(a.env())
                .containsEntry("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps")
                .containsEntry("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "30")
                .containsEntry("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", CARD0 + "=19456M");
        assertThat(b.env()).containsEntry("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "50");
        MpsDirs daemon =
                new MpsDirs(Path.of(a.mounts().keySet().iterator().next()).getParent());
        assertThat(MpsStandIn.environment(daemon))
                .contains("CUDA_VISIBLE_DEVICES=" + CARD0, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=100");
    }

    @Test
    void anotherCardGetsADaemonOfItsOwn() {
        CardDaemons layout = open();
        layout.hold(share("dp-a", CARD0, 19456, 30));
        layout.hold(share("dp-c", CARD1, 19456, 30));

        assertThat(layout.daemons()).isEqualTo(2);
        assertThat(layout.units())
                .extracting(MpsShare::cards)
                .containsExactlyInAnyOrder(List.of(CARD0), List.of(CARD1));
    }

    @Test
    void theCardsDaemonEndsWithItsLastShareAndARestartedAgentKeepsItForTheShareLeft() {
        CardDaemons layout = open();
        layout.hold(share("dp-a", CARD0, 19456, 30));
        layout.hold(share("dp-b", CARD0, 9216, 50));

        assertThat(layout.retain(s -> !s.key().equals("dp-a"))).containsExactly("dp-a");
        assertThat(layout.daemons()).isEqualTo(1);

        CardDaemons restarted = open();
        assertThat(restarted.shares()).extracting(MpsShare::key).containsExactly("dp-b");
        assertThat(restarted.retain(s -> true)).isEmpty();
        assertThat(restarted.daemons()).isEqualTo(1);

        restarted.release("dp-b");
        assertThat(restarted.daemons()).isZero();
        assertThat(restarted.shares()).isEmpty();
    }

    @Test
    void limitsInTheEnvironmentNameTheCardsByUuidSoThatNoEntryNamesACardTheProcessCannotSee() {
        MpsShare twoCards = new MpsShare(
                "dp-d", List.of(CARD1, CARD0), new MpsLimits(List.of(1000L, 2000L), 20, 1), "ns/d/main", "d", 0);

        assertThat(twoCards.clientEnvironment())
                .isEqualTo(Map.of(
                        "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                        "20",
                        "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
                        CARD1 + "=1000M," + CARD0 + "=2000M"));
    }
}
