package io.elasticgpu.node.dra;

import static io.elasticgpu.node.dra.FakeClaims.share;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.isolation.MpsAccess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClaimPreparationTest {

    private static final ClaimRef A = new ClaimRef("team", "a", "0a1b-uid-a");
    private static final ClaimRef B = new ClaimRef("team", "b", "uid-b");

    @TempDir
    Path dir;

    private final Hardware hw = DraCards.four();
    private final FakeClaims claims = new FakeClaims();

    private ClaimPreparation preparation() {
        return DraCards.preparation(dir, claims, ClaimIsolation.NONE);
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
        JsonNode spec = new ObjectMapper()
                .readTree(dir.resolve("cdi/elasticgpu.io-gpu_0a1b-uid-a.json").toFile());
        assertThat(spec.get("cdiVersion").asText()).isEqualTo("0.5.0");
        assertThat(spec.get("kind").asText()).isEqualTo("elasticgpu.io/gpu");
        JsonNode edits = spec.get("devices").get(0).get("containerEdits");
        assertThat(spec.get("devices").get(0).get("name").asText()).isEqualTo("0a1b-uid-a-gpu");
        assertThat(edits.get("deviceNodes").findValuesAsText("path")).containsExactly("/dev/nvidia2");
        assertThat(texts(edits.get("env")))
                .contains(
                        "NVIDIA_VISIBLE_DEVICES=GPU-dra00002-0000-0000-0000-000000000000",
                        "ELASTICGPU_CARD_INDEX=2",
                        "ELASTICGPU_MEMORY_LIMIT_MIB=4096",
                        "ELASTICGPU_CORE_PERCENT=30",
                        "CUDA_DEVICE_MEMORY_LIMIT_0=4096m",
                        "CUDA_DEVICE_SM_LIMIT=30");
        assertThat(spec.get("containerEdits").get("deviceNodes").findValuesAsText("path"))
                .containsExactly("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools");
        // the card as the NVIDIA toolkit's volume-mount device list, as the device plugin gives it
        assertThat(edits.get("mounts").findValuesAsText("containerPath"))
                .containsExactly("/var/run/nvidia-container-devices/GPU-dra00002-0000-0000-0000-000000000000");
        assertThat(edits.get("mounts").get(0).get("hostPath").asText()).isEqualTo("/dev/null");
        assertThat(texts(edits.get("mounts").get(0).get("options"))).contains("bind", "ro");
    }

    /** An isolation that records what it was asked and answers with a daemon's directories per request. */
    private static final class RecordingIsolation implements ClaimIsolation {
        final List<String> asked = new java.util.ArrayList<>();

        @Override
        public java.util.Optional<MpsAccess> isolate(
                ClaimRef claim, String request, List<Share> shares, int processes) {
            asked.add("isolate %s %s %s %d".formatted(claim.uid(), request, shares, processes));
            String dir = "/run/elastic-gpu/mps/dra-" + claim.uid() + "-" + request;
            java.util.Map<String, String> mounts = new java.util.LinkedHashMap<>();
            mounts.put(dir + "/pipe", "/tmp/nvidia-mps");
            mounts.put(dir + "/shm", "/dev/shm");
            return java.util.Optional.of(
                    new MpsAccess(mounts, java.util.Map.of("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps")));
        }

        @Override
        public void release(ClaimRef claim) {
            asked.add("release " + claim.uid());
        }
    }

    @Test
    void withIsolationEachRequestsCdiDeviceMountsItsDaemonsPipeAndSharedMemoryAndUnprepareReleasesThem()
            throws Exception {
        claims.byUid.put(A.uid(), List.of(share("gpu", 2, 4096, 30)));
        ClaimSource annotated = ref -> new AllocatedClaim(claims.allocated(ref).devices(), "2");
        RecordingIsolation isolation = new RecordingIsolation();
        ClaimPreparation p = DraCards.preparation(dir, annotated, isolation);

        p.prepare(A);

        assertThat(isolation.asked)
                .containsExactly("isolate 0a1b-uid-a gpu [Share[card=2, uuid=GPU-dra00002-0000-0000-0000-000000000000,"
                        + " milli=300, memoryMib=4096]] 2");
        JsonNode edits = new ObjectMapper()
                .readTree(dir.resolve("cdi/elasticgpu.io-gpu_0a1b-uid-a.json").toFile())
                .get("devices")
                .get(0)
                .get("containerEdits");
        assertThat(texts(edits.get("env")))
                .contains("CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps")
                .noneMatch(e -> e.startsWith("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE")
                        || e.startsWith("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"));
        List<String> mounts = new java.util.ArrayList<>();
        edits.get("mounts")
                .forEach(m -> mounts.add(m.get("hostPath").asText() + " -> "
                        + m.get("containerPath").asText()));
        assertThat(mounts)
                .containsExactly(
                        "/run/elastic-gpu/mps/dra-0a1b-uid-a-gpu/pipe -> /tmp/nvidia-mps",
                        "/run/elastic-gpu/mps/dra-0a1b-uid-a-gpu/shm -> /dev/shm",
                        "/dev/null -> /var/run/nvidia-container-devices/GPU-dra00002-0000-0000-0000-000000000000");

        p.unprepare(A);
        assertThat(isolation.asked).last().isEqualTo("release 0a1b-uid-a");
    }

    /**
     * A claim asking 30 cores and no memory, as the API has it allocated (the consumed capacity recorded without
     * memory): the share MPS is asked to hold carries the card's 81,920 MiB, which MPS holds as a limit of 80,896 MiB
     * (less the context reserve), rather than no memory, which it refuses.
     */
    @Test
    void withIsolationAComputeOnlyClaimsShareCarriesTheCardsMemory() {
        var allocated = ApiClaimsTest.claim(
                A.uid(),
                ApiClaimsTest.result(
                        "gpu.elasticgpu.io",
                        "node-a",
                        "gpu-3",
                        java.util.Map.of("cores", new io.fabric8.kubernetes.api.model.Quantity("30"))));
        RecordingIsolation isolation = new RecordingIsolation();
        ClaimPreparation p = DraCards.preparation(
                dir, ref -> AllocatedClaim.of(ApiClaims.devices(ref, allocated, "node-a", hw)), isolation);

        p.prepare(A);

        Share held = new Share(3, "GPU-dra00003-0000-0000-0000-000000000000", 300, 81_920);
        assertThat(isolation.asked).containsExactly("isolate 0a1b-uid-a gpu [%s] 1".formatted(held));
        assertThat(io.elasticgpu.api.v1alpha1.MpsLimits.of(
                                List.of(held), 1, io.elasticgpu.api.v1alpha1.MpsLimits.DEFAULT_CONTEXT_RESERVE_MIB)
                        .memoryMib())
                .containsExactly(80_896L);
    }

    @Test
    void aClaimWhoseProcessCountIsNotANumberIsRefusedWithItsValue() {
        claims.byUid.put(A.uid(), List.of(share("gpu", 2, 4096, 30)));
        ClaimSource annotated = ref -> new AllocatedClaim(claims.allocated(ref).devices(), "many");
        ClaimPreparation p = DraCards.preparation(dir, annotated, new RecordingIsolation());

        assertThatThrownBy(() -> p.prepare(A))
                .isInstanceOf(ClaimException.class)
                .hasMessage(
                        "claim team/a (0a1b-uid-a): annotation elasticgpu.io/gpu-processes must be a whole number 1..48"
                                + " (how many CUDA processes share the GPU share), was \"many\"");
        assertThat(dir.resolve("cdi/elasticgpu.io-gpu_0a1b-uid-a.json")).doesNotExist();
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

        assertThatThrownBy(() -> p.prepare(B))
                .isInstanceOf(ClaimException.class)
                .hasMessage(
                        "claim team/b (uid-b): card 1 (gpu-1) would hold 102400 of 81920 MiB and 1000 of 1000 milli "
                                + "with the claims"
                                + " prepared on it; refused so that the card is not over-committed (is a "
                                + "ResourceSlice edited by hand?)");
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

        assertThatThrownBy(() -> Checkpoint.open(file))
                .hasMessageStartingWith("DRA checkpoint " + file + " cannot be read (")
                .hasMessageEndingWith(
                        "the claims prepared on this node are unknown. Move it aside and restart the agent;"
                                + " kubelet prepares running pods' claims again");
    }

    private static List<String> texts(JsonNode array) {
        return java.util.stream.StreamSupport.stream(array.spliterator(), false)
                .map(JsonNode::asText)
                .toList();
    }
}
