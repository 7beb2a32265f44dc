package io.elasticgpu.node.dra;

import static io.elasticgpu.node.dra.FakeClaims.share;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.node.discovery.Hardware;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A starting agent whose DRA checkpoint is gone takes the claims the node's pods hold from the API. */
class ClaimRebuildTest {

    private static final ClaimRef A = new ClaimRef("team", "a", "uid-a");
    private static final ClaimRef B = new ClaimRef("team", "b", "uid-b");
    private static final ClaimRef C = new ClaimRef("team", "c", "uid-c");

    @TempDir
    Path dir;

    private final Hardware hw = DraCards.four();
    private final FakeClaims claims = new FakeClaims();

    /** A fresh run of the agent over the plugin and CDI directories as they are now. */
    private ClaimPreparation start() {
        return DraCards.preparation(dir, claims, ClaimIsolation.NONE);
    }

    @Test
    void aDeletedCheckpointIsRebuiltAndTheCardItsClaimHoldsIsNotHandedOutAgain() throws Exception {
        claims.with(A.uid(), share("gpu", 2, 61_440, 60));
        List<PreparedDevice> before = start().prepare(A);
        Path spec = dir.resolve("cdi/elasticgpu.io-gpu_uid-a.json");
        String specBefore = Files.readString(spec);
        Files.delete(dir.resolve("plugin/checkpoint.json")); // the state directory wiped while the pod runs
        Files.delete(spec);

        claims.held.add(A);
        ClaimPreparation restarted = start();
        Rebuilt rebuilt = restarted.rebuild(claims.held());

        assertThat(rebuilt.known()).isZero();
        assertThat(rebuilt.failed()).isEmpty();
        assertThat(rebuilt.rebuilt())
                .singleElement()
                .satisfies(p -> assertThat(p.devices()).isEqualTo(before));
        assertThat(Checkpoint.open(dir.resolve("plugin/checkpoint.json")).get(A.uid()))
                .as("written to a new checkpoint")
                .isPresent();
        assertThat(spec).hasContent(specBefore);
        // 60 GiB of card 2's 80 are A's: a claim for 30 GiB more of card 2 would over-commit it
        claims.with(B.uid(), share("gpu", 2, 30_720, 10));
        assertThatThrownBy(() -> restarted.prepare(B))
                .isInstanceOf(ClaimException.class)
                .hasMessageContaining("card 2 (gpu-2) would hold 92160 of 81920 MiB");
        assertThat(restarted.prepare(A)).as("kubelet preparing A again").isEqualTo(before);
        restarted.unprepare(A);
        assertThat(restarted.prepared()).isEmpty();
    }

    @Test
    void aCheckpointThatHoldsEveryHeldClaimRebuildsNothingAndReadsNoClaim() {
        claims.with(A.uid(), share("gpu", 0, 8192, 0));
        start().prepare(A);
        int reads = claims.reads;
        claims.held.add(A);

        Rebuilt rebuilt = start().rebuild(claims.held());

        assertThat(rebuilt.nothing()).isTrue();
        assertThat(rebuilt.known()).isEqualTo(1);
        assertThat(claims.reads).isEqualTo(reads);
    }

    @Test
    void aClaimTheApiCannotGiveIsNamedAndTheOthersAreStillRebuilt() {
        claims.with(A.uid(), share("gpu", 1, 8192, 20)).with(C.uid(), share("gpu", 3, 4096, 10));
        claims.held.addAll(List.of(A, B, C)); // B: listed as held, then deleted before it was read

        Rebuilt rebuilt = start().rebuild(claims.held());

        assertThat(rebuilt.rebuilt()).extracting(PreparedClaim::claim).containsExactly(A, C);
        assertThat(rebuilt.failed()).containsExactly("claim team/b (uid-b): not found");
        assertThat(rebuilt.message())
                .isEqualTo("the DRA checkpoint held 0 of the 3 claims that pods on this node hold; rebuilt 2 from the"
                        + " API (allocation and reservation): team/a (uid-a) on card 1; team/c (uid-c) on card 3;"
                        + " could not rebuild 1: claim team/b (uid-b): not found");
    }

    /**
     * A claim rebuilt for a pod bound here that kubelet had not prepared yet, whose pod is then deleted: kubelet never
     * unprepares it, so the agent does once no pod holds it; a claim still held stays.
     */
    @Test
    void aPreparedClaimNoPodHoldsAnyMoreIsUnpreparedAndAHeldOneStays() {
        claims.with(A.uid(), share("gpu", 1, 8192, 20)).with(C.uid(), share("gpu", 1, 8192, 20));
        claims.held.addAll(List.of(A, C));
        ClaimPreparation agent = start();
        agent.rebuild(claims.held());
        List<PreparedClaim> before = agent.prepared();
        claims.held.remove(C); // its pod deleted before kubelet prepared it

        List<ClaimRef> pruned = agent.prune(before, claims.held());

        assertThat(pruned).containsExactly(C);
        assertThat(agent.prepared()).extracting(PreparedClaim::claim).containsExactly(A);
        assertThat(dir.resolve("cdi/elasticgpu.io-gpu_uid-c.json")).doesNotExist();
        assertThat(dir.resolve("cdi/elasticgpu.io-gpu_uid-a.json")).exists();
    }
}
