package io.elasticgpu.node.dra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.node.deviceplugin.ContainerEnvironment;
import io.elasticgpu.node.deviceplugin.DeviceCatalog;
import io.elasticgpu.node.discovery.Hardware;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.elasticgpu.node.dra.FakeClaims.share;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClaimPreparationTest {

    private static final ClaimRef A = new ClaimRef("team", "a", "0a1b-uid-a");
    private static final ClaimRef B = new ClaimRef("team", "b", "uid-b");

    @TempDir
    Path dir;
    private final Hardware hw = DraCards.four();
    private final FakeClaims claims = new FakeClaims();

    private ClaimPreparation preparation() {
        return new ClaimPreparation(claims, Checkpoint.open(dir.resolve("plugin/checkpoint.json")), new CdiSpecs(dir.resolve("cdi")),
                hw, new DeviceCatalog(hw, List.of()), new ContainerEnvironment(1024), "node-a");
    }

    @Test
    void aClaimGetsACdiDevicePerRequestWithTheDevicePluginPathsVariables() throws Exception {
        claims.with(A.uid(), share("gpu", 2, 4096, 30));

        List<PreparedDevice> devices = preparation().prepare(A);

        assertThat(devices).singleElement().satisfies(d -> {
            assertThat(d.cdiDeviceIds()).containsExactly("elasticgpu.io/gpu=0a1b-uid-a-gpu");
            assertThat(d.pool()).isEqualTo("node-a");
            assertThat(d.device()).isEqualTo("gpu-2");
            assertThat(d.shareId()).isEqualTo("share-2");
        });
        JsonNode spec = new ObjectMapper().readTree(dir.resolve("cdi/elasticgpu.io-gpu_0a1b-uid-a.json").toFile());
        assertThat(spec.get("cdiVersion").asText()).isEqualTo("0.5.0");
        assertThat(spec.get("kind").asText()).isEqualTo("elasticgpu.io/gpu");
        JsonNode edits = spec.get("devices").get(0).get("containerEdits");
        assertThat(spec.get("devices").get(0).get("name").asText()).isEqualTo("0a1b-uid-a-gpu");
        assertThat(edits.get("deviceNodes").findValuesAsText("path")).containsExactly("/dev/nvidia2");
        assertThat(texts(edits.get("env"))).contains("NVIDIA_VISIBLE_DEVICES=GPU-dra00002-0000-0000-0000-000000000000",
                "ELASTICGPU_CARD_INDEX=2", "ELASTICGPU_MEMORY_LIMIT_MIB=4096", "ELASTICGPU_CORE_PERCENT=30",
                "CUDA_DEVICE_MEMORY_LIMIT_0=4096m", "CUDA_DEVICE_SM_LIMIT=30");
        assertThat(spec.get("containerEdits").get("deviceNodes").findValuesAsText("path"))
                .containsExactly("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools");
    }

    @Test
    void preparingAgainAnswersTheSameWithoutAskingTheApiEvenAfterARestart() {
        claims.with(A.uid(), share("gpu", 0, 8192, 0));
        List<PreparedDevice> first = preparation().prepare(A);
        claims.byUid.clear(); // the claim is gone from the API; the node still knows what it prepared
        Path spec = dir.resolve("cdi/elasticgpu.io-gpu_0a1b-uid-a.json");

        ClaimPreparation restarted = preparation();
        assertThat(restarted.prepare(A)).isEqualTo(first);
        assertThat(claims.reads).isEqualTo(1);
        assertThat(spec).exists();
    }

    @Test
    void unprepareRemovesTheSpecAndTheCheckpointEntryAndIsIdempotent() {
        claims.with(A.uid(), share("gpu", 0, 8192, 0));
        ClaimPreparation p = preparation();
        p.prepare(A);

        p.unprepare(A);
        p.unprepare(A);
        preparation().unprepare(B); // never prepared: nothing to do, no error

        assertThat(dir.resolve("cdi/elasticgpu.io-gpu_0a1b-uid-a.json")).doesNotExist();
        assertThat(preparation().prepared()).isEmpty();
    }

    @Test
    void aClaimThatWouldOverCommitACardIsRefusedAndChangesNothing() {
        // card 1: 81920 MiB; A holds 61440, B asks 40960: 102400 > 81920
        claims.with(A.uid(), share("gpu", 1, 61_440, 50)).with(B.uid(), share("gpu", 1, 40_960, 50));
        ClaimPreparation p = preparation();
        p.prepare(A);

        assertThatThrownBy(() -> p.prepare(B)).isInstanceOf(ClaimException.class).hasMessage(
                "claim team/b (uid-b): card 1 (gpu-1) would hold 102400 of 81920 MiB and 1000 of 1000 milli with the claims"
                        + " prepared on it; refused so that the card is not over-committed (is a ResourceSlice edited by hand?)");
        assertThat(p.prepared()).extracting(c -> c.claim().uid()).containsExactly(A.uid());
        assertThat(dir.resolve("cdi/elasticgpu.io-gpu_uid-b.json")).doesNotExist();
    }

    @Test
    void aSpecLostWithVarRunIsWrittenAgainOnTheNextPrepare() throws Exception {
        claims.with(A.uid(), share("gpu", 3, 1024, 10));
        preparation().prepare(A);
        Path spec = dir.resolve("cdi/elasticgpu.io-gpu_0a1b-uid-a.json");
        String text = Files.readString(spec);
        Files.delete(spec);

        preparation().prepare(A);

        assertThat(Files.readString(spec)).isEqualTo(text);
    }

    @Test
    void anUnreadableCheckpointStopsTheAgentSayingWhatToDo() throws Exception {
        Path file = dir.resolve("plugin/checkpoint.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{half");

        assertThatThrownBy(() -> Checkpoint.open(file)).hasMessageStartingWith("DRA checkpoint " + file + " cannot be read (")
                .hasMessageEndingWith("the claims prepared on this node are unknown. Move it aside and restart the agent;"
                        + " kubelet prepares running pods' claims again");
    }

    private static List<String> texts(JsonNode array) {
        return java.util.stream.StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
    }
}
