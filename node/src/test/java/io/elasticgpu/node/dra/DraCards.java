package io.elasticgpu.node.dra;

import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.LinkKind;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.node.deviceplugin.ContainerEnvironment;
import io.elasticgpu.node.deviceplugin.DeviceCatalog;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Test hardware for the DRA tests: A100s of 81,920 MiB, cards 0-1 and 2-3 joined by NVLink. */
public final class DraCards {

    private DraCards() {}

    public static Hardware four() {
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            gpus.add(new Gpu(
                    i,
                    "GPU-dra0000" + i + "-0000-0000-0000-000000000000",
                    "NVIDIA A100-SXM4-80GB",
                    81_920,
                    "00000000:0%d:00.0".formatted(i + 1),
                    i,
                    i / 2,
                    false));
        }
        Topology t = Topology.builder(4)
                .link(0, 1, new Link(LinkKind.NVLINK, 12))
                .link(2, 3, new Link(LinkKind.NVLINK, 12))
                .build();
        return new Hardware("535.104.05", gpus, t);
    }

    /**
     * A run of the agent's preparation on {@link #four()} cards in pool {@code node-a}, over {@code dir}'s checkpoint
     * ({@code plugin/checkpoint.json}) and CDI directory ({@code cdi}) as they are now.
     */
    public static ClaimPreparation preparation(Path dir, ClaimSource claims, ClaimIsolation isolation) {
        Hardware hw = four();
        return new ClaimPreparation(
                claims,
                Checkpoint.open(dir.resolve("plugin/checkpoint.json")),
                new CdiSpecs(dir.resolve("cdi")),
                hw,
                new DeviceCatalog(hw, List.of()),
                new ContainerEnvironment(1024),
                "node-a",
                isolation);
    }
}
