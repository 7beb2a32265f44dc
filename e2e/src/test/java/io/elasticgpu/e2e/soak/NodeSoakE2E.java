package io.elasticgpu.e2e.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.bench.Lab;
import io.elasticgpu.bench.NodeSoakCommand;
import io.elasticgpu.bench.soak.NodeSoak;
import io.elasticgpu.bench.soak.NodeSoakOptions;
import io.elasticgpu.bench.soak.SoakResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, the node-side soak reduced ({@code bench/run node-soak}): 150 pods of the openb trace's shapes admitted
 * by kubelet's own device manager on an 8-card node, the agent a separate process, a fault every 10 steps so that
 * each kind happens several times: kubelet restarted, the agent SIGKILLed while kubelet admits a pod, a plugin
 * socket deleted, an Xid storm. No card may be over capacity at any step, every container must have been told what
 * the agent recorded, every allocation must be recorded and the agent's ledger equal to the running pods after each
 * fault (an agent restart loses and duplicates nothing), and nothing may be left after the drain.
 */
class NodeSoakE2E {

    private static final Path SHARED = Path.of(System.getProperty("egpu.shared", "../../shared"));

    @Test
    void churnOnOneNodeWithKubeletAndAgentCrashesBreaksNoInvariant(@TempDir Path work) throws Exception {
        NodeSoakOptions options = Lab.parse(
                        new NodeSoakCommand(),
                        "--pods",
                        "150",
                        "--fault-every",
                        "10",
                        "--seed",
                        "7",
                        "--trace",
                        SHARED.resolve("traces/openb/openb_pod_list_default.csv")
                                .toString())
                .options();
        SoakResult r = NodeSoak.run(options, work, System.out);
        System.out.print(r.table());

        assertThat(r.faults())
                .as("faults by kind")
                .containsOnlyKeys(
                        "KUBELET_RESTARTED", "AGENT_KILLED_MID_ADMISSION", "PLUGIN_SOCKET_DELETED", "XID_STORM");
        assertThat(r.faults().values())
                .as("each kind at least twice")
                .allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(2));
        assertThat(r.podsBound()).as("pods admitted").isGreaterThanOrEqualTo(150);
        assertThat(r.podsDeleted()).as("pods removed to make room or at random").isGreaterThan(50);
        assertThat(r.auditSamples()).as("steps audited").isGreaterThan(150);
        assertThat(r.violations())
                .as("broken invariants, first examples: %s", r.violationExamples())
                .isEmpty();
    }
}
