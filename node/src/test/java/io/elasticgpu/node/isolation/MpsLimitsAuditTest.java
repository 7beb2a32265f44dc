package io.elasticgpu.node.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.MpsLimits;
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
 * A share's limits are read back every round, the daemon's defaults and each running server's own, and any that
 * changed is set again: a container has the share's pipe directory, and whether the control daemon takes commands
 * from it is the daemon's business (MPS documents no refusal), so a pod may have sent
 * {@code set_active_thread_percentage <server> 100}. The stand-in takes every command, as the worst case.
 */
class MpsLimitsAuditTest {

    private static final String CARD = "GPU-11111111-2222-3333-4444-555555555555";
    private static final MpsShare SHARE = new MpsShare(
            "dp-0123456789abcdef",
            List.of(CARD),
            new MpsLimits(List.of(20480L), 30, 1),
            "team-a/train/main",
            "elasticgpu.io/gpu-memory " + CARD + "::m0",
            0);

    @TempDir
    Path dir;

    private Path root;
    private MpsControl control;
    private MpsDaemons daemons;
    private MpsDirs dirs;

    @BeforeEach
    void start() {
        root = dir.resolve("mps");
        control = new MpsControl(MpsStandIn.install(dir.resolve("bin")).program(), false, "", Duration.ofSeconds(10));
        daemons = MpsDaemons.open(control, root, InstantSource.system(), MpsDaemons.Listener.NONE);
        dirs = daemons.ensure(SHARE);
    }

    @AfterEach
    void end() {
        MpsStandIn.killAll(root);
    }

    @Test
    void limitsAsSetAreReadBackAndLeftAlone() {
        int before = MpsStandIn.commands(dirs).size();

        assertThat(daemons.audit(Map.of())).isEmpty();

        assertThat(MpsStandIn.commands(dirs)
                        .subList(before, MpsStandIn.commands(dirs).size()))
                .containsExactly("get_default_active_thread_percentage", "get_default_device_pinned_mem_limit 0");
    }

    @Test
    void aDefaultChangedThroughTheControlPipeIsSetBackAndReported() {
        control.send(dirs.pipe(), "set_default_active_thread_percentage 100"); // a pod's own command

        List<LimitDrift> drifts = daemons.audit(Map.of());

        assertThat(drifts).singleElement().satisfies(d -> {
            assertThat(d.share()).isEqualTo(SHARE);
            assertThat(d.server()).isZero();
            assertThat(d.setting()).isEqualTo("active_thread_percentage");
            assertThat(d.found()).isEqualTo("100.0");
            assertThat(d.expected()).isEqualTo("30");
            assertThat(d.describe())
                    .isEqualTo("active_thread_percentage (the daemon's default) was \"100.0\", set again to 30");
        });
        assertThat(control.send(dirs.pipe(), "get_default_active_thread_percentage"))
                .isEqualTo("30.0");
        assertThat(daemons.audit(Map.of())).isEmpty();
    }

    @Test
    void aRunningServersOwnLimitsAreReadBackAndSetBack() {
        MpsStandIn.serve(dirs, 7001);
        control.send(dirs.pipe(), "set_device_pinned_mem_limit 7001 0 81559M");
        control.send(dirs.pipe(), "set_active_thread_percentage 7001 100");

        List<LimitDrift> drifts = daemons.audit(Map.of(SHARE.key(), List.of(7001L)));

        assertThat(drifts)
                .extracting(LimitDrift::server, LimitDrift::setting, LimitDrift::found, LimitDrift::expected)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(7001L, "active_thread_percentage", "100.0", "30"),
                        org.assertj.core.groups.Tuple.tuple(7001L, "device_pinned_mem_limit 0", "81559M", "20480M"));
        assertThat(MpsStandIn.commands(dirs))
                .contains("set_active_thread_percentage 7001 30", "set_device_pinned_mem_limit 7001 0 20480M");
        assertThat(control.send(dirs.pipe(), "get_device_pinned_mem_limit 7001 0"))
                .isEqualTo("20480M");
    }

    @Test
    void aLimitReadInOtherUnitsIsTheSameLimit() {
        control.send(dirs.pipe(), "set_default_device_pinned_mem_limit 0 20G"); // 20 GiB is 20480 MiB

        assertThat(daemons.audit(Map.of())).isEmpty();
    }

    @Test
    void anAnswerThatIsNoLimitIsNotTakenForAChange() {
        control.send(dirs.pipe(), "set_default_device_pinned_mem_limit 0 unknown");
        int before = MpsStandIn.commands(dirs).size();

        assertThat(daemons.audit(Map.of())).isEmpty();
        assertThat(MpsStandIn.commands(dirs)
                        .subList(before, MpsStandIn.commands(dirs).size()))
                .noneMatch(c -> c.startsWith("set_"));
    }
}
