package io.elasticgpu.node.resourceslice;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.node.discovery.GpuEvent;
import io.elasticgpu.node.dra.DraCards;
import io.elasticgpu.node.health.CardHealth;
import io.elasticgpu.node.health.HealthPolicy;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SliceDevicesTest {

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-21T10:00:00Z"));
    private final CardHealth health = new CardHealth(4, HealthPolicy.DEFAULT, now::get);

    @Test
    void everyCardIsOneShareableDeviceWithItsAttributes() {
        List<Device> devices = SliceDevices.devices(DraCards.four(), health, 256);

        assertThat(devices).extracting(Device::getName).containsExactly("gpu-0", "gpu-1", "gpu-2", "gpu-3");
        Device d = devices.get(3);
        assertThat(d.getAllowMultipleAllocations()).isTrue();
        assertThat(d.getAttributes().get("model").getString()).isEqualTo("NVIDIA A100-SXM4-80GB");
        assertThat(d.getAttributes().get("uuid").getString()).isEqualTo("GPU-dra00003-0000-0000-0000-000000000000");
        assertThat(d.getAttributes().get("index").getInt()).isEqualTo(3);
        assertThat(d.getAttributes().get("driverVersion").getString()).isEqualTo("535.104.05");
        assertThat(d.getAttributes().get("numaNode").getInt()).isEqualTo(1);
        assertThat(d.getAttributes().get("memoryMiB").getInt()).isEqualTo(81_920);
        assertThat(d.getTaints()).isNullOrEmpty();
    }

    @Test
    void cardsJoinedByNvlinkShareTheIslandOfTheirLowestIndex() {
        // links: 0-1 and 2-3 NVLink, the rest across sockets
        assertThat(SliceDevices.devices(DraCards.four(), health, 1))
                .extracting(d -> d.getAttributes().get("nvlinkIsland").getInt())
                .containsExactly(0L, 0L, 2L, 2L);
    }

    @ParameterizedTest(name = "{0} MiB in blocks of {1}: memory {2}..{3} step {1}, default {3}")
    @CsvSource({
        // usable = floor(memory / block) × block
        "81920, 1,    1,    81920", // every MiB
        "81920, 256,  256,  81920", // 81920 / 256 = 320 blocks exactly
        "15360, 1000, 1000, 15000", // 15 whole blocks of 1000; the last 360 MiB cannot be asked
    })
    void memoryIsAskedInBlocksUpToTheLastWholeBlock(long memory, long block, long min, long usable) {
        DeviceCapacity c = SliceDevices.capacity(memory, block).get("memory");

        assertThat(c.getValue()).isEqualTo(new Quantity(Long.toString(memory), "Mi"));
        assertThat(c.getRequestPolicy().getDefault()).isEqualTo(new Quantity(Long.toString(usable), "Mi"));
        assertThat(c.getRequestPolicy().getValidRange().getMin()).isEqualTo(new Quantity(Long.toString(min), "Mi"));
        assertThat(c.getRequestPolicy().getValidRange().getMax()).isEqualTo(new Quantity(Long.toString(usable), "Mi"));
        assertThat(c.getRequestPolicy().getValidRange().getStep()).isEqualTo(new Quantity(Long.toString(block), "Mi"));
    }

    @Test
    void coresArePercentFrom0To100AndAskingNoneLimitsNothing() {
        DeviceCapacity c = SliceDevices.capacity(81_920, 1).get("cores");

        assertThat(c.getValue()).isEqualTo(new Quantity("100"));
        assertThat(c.getRequestPolicy().getDefault()).isEqualTo(new Quantity("0"));
        assertThat(Map.of(
                        "min",
                        c.getRequestPolicy().getValidRange().getMin(),
                        "max",
                        c.getRequestPolicy().getValidRange().getMax(),
                        "step",
                        c.getRequestPolicy().getValidRange().getStep()))
                .isEqualTo(Map.of("min", new Quantity("0"), "max", new Quantity("100"), "step", new Quantity("1")));
    }

    @Test
    void anUnhealthyCardIsTaintedNoScheduleOrNoExecuteAndLosesTheTaintOnRecovery() {
        health.onEvent(new GpuEvent.Xid(1, 62)); // critical; running work not known lost
        health.onEvent(new GpuEvent.Xid(2, 79)); // fallen off the bus: its work is gone

        List<Device> sick = SliceDevices.devices(DraCards.four(), health, 1);
        assertThat(sick.get(1).getTaints()).singleElement().satisfies(t -> {
            assertThat(t.getKey()).isEqualTo("gpu.elasticgpu.io/unhealthy");
            assertThat(t.getValue()).isEqualTo("Xid-62");
            assertThat(t.getEffect()).isEqualTo("NoSchedule");
        });
        assertThat(sick.get(2).getTaints()).singleElement().extracting("effect").isEqualTo("NoExecute");

        now.set(now.get().plus(Duration.ofMinutes(5)));
        health.recover(c -> true);
        assertThat(SliceDevices.devices(DraCards.four(), health, 1))
                .allSatisfy(d -> assertThat(d.getTaints()).isNullOrEmpty());
    }

    @Test
    void cardsThatDevicePluginPodsStillHoldAreTaintedNoScheduleBesideAnyHealthTaint() {
        health.onEvent(new GpuEvent.Xid(2, 62));

        List<Device> devices = SliceDevices.devices(DraCards.four(), health, 1, Set.of(0, 2));

        assertThat(devices.get(0).getTaints()).singleElement().satisfies(t -> {
            assertThat(t.getKey()).isEqualTo("gpu.elasticgpu.io/device-plugin-pods");
            assertThat(t.getEffect()).isEqualTo("NoSchedule");
        });
        assertThat(devices.get(1).getTaints()).isNullOrEmpty();
        assertThat(devices.get(2).getTaints())
                .extracting(t -> t.getKey())
                .containsExactly("gpu.elasticgpu.io/unhealthy", "gpu.elasticgpu.io/device-plugin-pods");
        assertThat(devices.get(3).getTaints()).isNullOrEmpty();
    }
}
