package io.elasticgpu.node.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.node.allocation.AllocationException;
import io.elasticgpu.node.deviceplugin.AdvertisedResource.Kind;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeviceCatalogTest {

    private static Hardware cards(int n, long memoryMib) {
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            gpus.add(new Gpu(
                    i,
                    "GPU-%08d-0000-0000-0000-000000000000".formatted(i),
                    "A100",
                    memoryMib,
                    "00000000:0%d:00.0".formatted(i),
                    i,
                    0,
                    false));
        }
        return new Hardware("570.1", gpus, Topology.uniform(n, Link.UNKNOWN));
    }

    @Test
    void deviceIdsSayWhichCardTheyBelongTo() {
        AdvertisedResource memory = new AdvertisedResource("elasticgpu.io/gpu-memory", Kind.MEMORY, 1024);
        AdvertisedResource whole = new AdvertisedResource("elasticgpu.io/gpu", Kind.WHOLE, 0);
        DeviceCatalog catalog = new DeviceCatalog(cards(2, 16_384), List.of(memory, whole));

        assertThat(catalog.ids(memory)).hasSize(32).startsWith("GPU-00000000-0000-0000-0000-000000000000::m0");
        assertThat(catalog.ids(whole))
                .containsExactly(
                        "GPU-00000000-0000-0000-0000-000000000000", "GPU-00000001-0000-0000-0000-000000000000");
        assertThat(catalog.cardOf("GPU-00000001-0000-0000-0000-000000000000::m15"))
                .isEqualTo(1);
        assertThat(catalog.wholeCards("elasticgpu.io/gpu")).isTrue();
        assertThat(catalog.wholeCards("elasticgpu.io/gpu-memory")).isFalse();
    }

    @Test
    void anIdThatIsNotOursIsRefused() {
        DeviceCatalog catalog = new DeviceCatalog(cards(1, 1024), List.of());

        assertThatThrownBy(() -> catalog.cardOf("GPU-zzz::m1"))
                .isInstanceOf(AllocationException.class)
                .hasMessage("device id GPU-zzz::m1 is not one this agent advertises (cards: "
                        + "[GPU-00000000-0000-0000-0000-000000000000])");
    }

    @Test
    void aMemoryBlockTooSmallForKubeletSaysWhichBlockToUse() {
        AdvertisedResource perMib = new AdvertisedResource("elasticgpu.io/gpu-memory", Kind.MEMORY, 1);

        assertThatThrownBy(() -> new DeviceCatalog(cards(8, 81_920), List.of(perMib)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("elasticgpu.io/gpu-memory: 655360 MiB of GPU memory in 1 MiB blocks makes a device list of "
                        + "about 40 MiB;"
                        + " kubelet accepts at most 4 MiB. Use a memory block of 16 MiB or more (node agent "
                        + "--memory-block-mib and"
                        + " the extender's memoryBlockMib, which must agree)");
    }
}
