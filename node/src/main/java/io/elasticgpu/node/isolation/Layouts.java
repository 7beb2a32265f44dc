package io.elasticgpu.node.isolation;

import io.elasticgpu.node.discovery.ComputeMode;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.Hardware;
import java.util.List;
import java.util.Optional;

/**
 * Which MPS layout a node runs, decided once at the agent's start from the flag and what the node has: whether its
 * control program offers MPS v3 ({@code nvidia-cuda-mps-control -p 3 -h} lists the {@code server} and
 * {@code namespace} modules, as NVIDIA's guide checks it), whether its kernel holds device memory per cgroup
 * ({@code dmem}), and each card's compute mode. A layout asked for that the node cannot run stops the agent with a
 * message naming the flag and what was found.
 */
final class Layouts {

    private Layouts() {}

    /**
     * @param layout never {@code AUTO}
     * @param memory what sets each pod's memory limit on its cgroup, with the v3 layout where the kernel has dmem
     * @param why    why this layout, for the log and the node's status
     */
    record Choice(IsolationConfig.Layout layout, Optional<CgroupMemoryLimits> memory, String why) {}

    static Choice choose(IsolationConfig config, MpsControl control, Hardware hardware) {
        Optional<String> v3 = v3(control, config);
        IsolationConfig.Layout layout = config.layout();
        String why;
        switch (layout) {
            case AUTO -> {
                layout = v3.isEmpty() ? IsolationConfig.Layout.V3 : IsolationConfig.Layout.PER_SHARE;
                why = v3.isEmpty()
                        ? "auto: the control program offers MPS v3"
                        : "auto: no MPS v3 (%s; driver %s)".formatted(v3.get(), hardware.driverVersion());
            }
            case V3 -> {
                if (v3.isPresent()) {
                    throw new IllegalArgumentException(("--mps-layout v3 needs MPS v3 (NVIDIA driver 615 or later,"
                                    + " CUDA 13.4), and this node's driver is %s: %s; use --mps-layout per-share (or"
                                    + " auto, which picks per-share here)")
                            .formatted(hardware.driverVersion(), v3.get()));
                }
                why = "asked for";
            }
            default -> why = "asked for";
        }
        Optional<CgroupMemoryLimits> memory = Optional.empty();
        if (layout == IsolationConfig.Layout.V3) {
            var cgroupfs = MpsIsolation.cgroupfs(config);
            CgroupMemoryLimits limits = new CgroupMemoryLimits(
                    config.nvidiaSmi(), cgroupfs, control.proc(), config.hostNamespaces(), config.timeout(), hardware);
            // read where nvidia-smi runs (the host's cgroup namespace with hostNamespaces), not the agent's own view
            if (limits.backend().isPresent()) {
                memory = Optional.of(limits);
            } else {
                why += "; no nvidia region in %s/dmem.capacity: memory is held by MPS's pinned limit alone"
                        .formatted(cgroupfs);
            }
        }
        return new Choice(layout, memory, why);
    }

    /** Empty when the control program offers MPS v3, else what it answered instead. */
    private static Optional<String> v3(MpsControl control, IsolationConfig config) {
        try {
            String help = control.call(config.root(), List.of("-p", "3", "-h"));
            if (help.contains("server") && help.contains("namespace")) {
                return Optional.empty();
            }
            return Optional.of("%s -p 3 -h lists no server and namespace modules".formatted(control.program()));
        } catch (MpsException e) {
            return Optional.of("%s -p 3 -h failed: %s".formatted(control.program(), e.getMessage()));
        }
    }

    /**
     * Whether every card MPS may hold is in compute mode EXCLUSIVE_PROCESS, where the driver lets only one process
     * (the MPS server) use it, so no process can go around MPS.
     *
     * @throws IllegalArgumentException when a card's mode forbids the layout: the per-share layout runs several MPS
     *                                  servers on one card, which only mode DEFAULT allows; no layout runs on a card
     *                                  in mode PROHIBITED
     */
    static boolean checkComputeModes(IsolationConfig.Layout layout, Hardware hardware, GpuBackend gpus) {
        boolean exclusive = !hardware.gpus().isEmpty();
        for (Gpu g : hardware.gpus()) {
            if (g.migEnabled()) {
                continue; // NVML answers a MIG card's compute mode only per MIG device; whole-card MPS does not apply
            }
            ComputeMode mode = gpus.computeMode(g.index());
            boolean allowed = switch (layout) {
                case PER_SHARE -> mode == ComputeMode.DEFAULT;
                default -> mode == ComputeMode.DEFAULT || mode == ComputeMode.EXCLUSIVE_PROCESS;
            };
            if (!allowed) {
                throw new IllegalArgumentException(refusal(layout, g, mode));
            }
            exclusive &= mode == ComputeMode.EXCLUSIVE_PROCESS;
        }
        return exclusive;
    }

    private static String refusal(IsolationConfig.Layout layout, Gpu g, ComputeMode mode) {
        String fix = layout == IsolationConfig.Layout.PER_SHARE
                ? ("the per-share MPS layout runs one daemon per share, so several MPS servers use a card at once,"
                                + " which only compute mode DEFAULT allows; set it with nvidia-smi -i %d -c DEFAULT, or"
                                + " use --mps-layout per-card or v3")
                        .formatted(g.index())
                : ("MPS needs DEFAULT or EXCLUSIVE_PROCESS (with which the driver lets no process use the card"
                                + " around MPS): nvidia-smi -i %d -c EXCLUSIVE_PROCESS")
                        .formatted(g.index());
        return "card %d (%s) is in compute mode %s; %s".formatted(g.index(), g.uuid(), mode, fix);
    }
}
