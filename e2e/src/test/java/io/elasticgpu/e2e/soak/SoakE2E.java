package io.elasticgpu.e2e.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.bench.Lab;
import io.elasticgpu.bench.SoakCommand;
import io.elasticgpu.bench.soak.Soak;
import io.elasticgpu.bench.soak.SoakOptions;
import io.elasticgpu.bench.soak.SoakResult;
import io.elasticgpu.localcluster.controlplane.Binaries;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, the control-plane soak reduced to two minutes ({@code bench/run soak}): 12 kwok GPU nodes, pods of the
 * openb trace's shapes coming and going in four vendors' resource names and through ElasticGPUClaims (the webhook
 * served by both controller replicas behind one address), two extender and two controller replicas,
 * and a fault every 12 seconds, so that each kind happens at least once: an extender, the controller leader and
 * kube-scheduler killed, kube-apiserver restarted, a card unhealthy, a node deleted under its pods, a burst. The
 * auditor, reading only the API, must find no invariant broken at any sample nor anything left after the drain.
 */
class SoakE2E {

    private static final Path SHARED = Path.of(System.getProperty("egpu.shared", "../../shared"));
    private static final String TRACE = "traces/openb/openb_pod_list_default.csv";

    @Test
    void twoMinutesOfChurnAndFaultsBreakNoInvariantAndLeaveNothingBehind(@TempDir Path work) throws Exception {
        SoakOptions options = Lab.parse(
                        new SoakCommand(),
                        "--minutes",
                        "2",
                        "--nodes",
                        "12",
                        "--fault-every",
                        "12",
                        "--burst",
                        "100",
                        "--seed",
                        "7",
                        "--trace",
                        SHARED.resolve(TRACE).toString())
                .options();
        SoakResult r = Soak.run(options, Binaries.E2E_DIR.toAbsolutePath().getParent(), work, System.out);
        System.out.print(r.table());

        assertThat(r.faults())
                .as("faults by kind")
                .containsOnlyKeys(
                        "EXTENDER_KILLED",
                        "CONTROLLER_LEADER_KILLED",
                        "SCHEDULER_KILLED",
                        "APISERVER_RESTARTED",
                        "CARD_UNHEALTHY",
                        "NODE_DELETED",
                        "BURST",
                        "UPGRADE_AND_ROLLBACK");
        assertThat(r.faultLog())
                .as("every fault did what it says")
                .noneMatch(l -> l.contains("not done") || l.contains("none killed"));
        assertThat(r.podsBound()).as("pods bound").isGreaterThan(100);
        assertThat(r.claimsCreated())
                .as("pods asking through an ElasticGPUClaim and the webhook")
                .isGreaterThan(5);
        assertThat(r.podsDeleted())
                .as("pods deleted at the end of their lifetime")
                .isGreaterThan(20);
        assertThat(r.auditSamples()).as("audit samples").isGreaterThan(10);
        assertThat(r.memory().perMinute())
                .as("each of our JVMs' heap after a full collection, every minute")
                .containsKeys("extender-0", "extender-1", "controller-0", "controller-1");
        // The standby extender is only rolled by the upgrade, never killed. jcmd may not answer a JVM
        // that is stopping or starting (heapMib -1): one such minute is allowed, not more.
        var standby = r.memory().perMinute().get("extender-1");
        assertThat(standby)
                .as("the standby extender: heap after a full collection measured each minute")
                .filteredOn(s -> s.heapMib() > 0)
                .hasSizeGreaterThanOrEqualTo(2)
                .allMatch(s -> s.rssMib() > s.heapMib());
        assertThat(standby)
                .as("minutes in which jcmd did not answer the standby extender")
                .filteredOn(s -> s.heapMib() < 0)
                .hasSizeLessThanOrEqualTo(1);
        assertThat(r.kills())
                .as("kills of the extender, the controller leader and kube-scheduler, and the upgrade, each timed"
                        + " to the next bind")
                .extracting(k -> k.kind())
                .contains("EXTENDER_KILLED", "CONTROLLER_LEADER_KILLED", "SCHEDULER_KILLED", "UPGRADE_AND_ROLLBACK");
        assertThat(r.kills()).allMatch(k -> k.toNextBindSeconds() >= 0, "a bind came after every kill");
        assertThat(r.violations())
                .as("broken invariants, first examples: %s", r.violationExamples())
                .isEmpty();
    }
}
