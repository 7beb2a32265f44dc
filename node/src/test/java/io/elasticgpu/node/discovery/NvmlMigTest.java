package io.elasticgpu.node.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** MIG through the NVML binding, against the C stub's MIG functions (src/test/c/nvml_stub.c). */
class NvmlMigTest {

    private static final String H100 = "NVIDIA H100 80GB HBM3";

    /**
     * Card 0 in MIG mode with a 3g.40gb GPU instance split into two compute instances (2 and 1 compute slices), a
     * 2g.20gb and a 1g.10gb; card 1 off until its next reset turns MIG on; card 2 on until its next reset turns it
     * off; card 3 cannot do MIG.
     */
    private static final String NODE = """
            card GPU-00000000-0000-4000-8000-000000000000 00000000:07:00.0 0 0 1 81559 %1$s
            card GPU-00000000-0000-4000-8000-000000000001 00000000:0F:00.0 1 0 0 81559 %1$s
            card GPU-00000000-0000-4000-8000-000000000002 00000000:47:00.0 2 0 1 81559 %1$s
            card GPU-00000000-0000-4000-8000-000000000003 00000000:4E:00.0 3 0 0 15360 Tesla T4
            mig 0 1 0 4 4 3 2 40192 MIG-00000000-0000-4000-8000-00000000a001
            mig 0 1 1 4 4 3 1 40192 MIG-00000000-0000-4000-8000-00000000a002
            mig 0 5 0 0 2 2 2 20096 MIG-00000000-0000-4000-8000-00000000a003
            mig 0 13 0 2 1 1 1 9856 MIG-00000000-0000-4000-8000-00000000a004
            migmode 1 0 1
            migmode 2 1 0
            fail nvmlDeviceGetMigMode 3 3
            """.formatted(H100);

    private List<Gpu> discover(String config) {
        NvmlStub.configure(config);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            return nvml.discover().gpus();
        }
    }

    @Test
    void aCardInMigModeListsItsMigDevicesWithTheirProfilesAndPlacements() {
        Mig mig = discover(NODE).getFirst().mig();

        assertThat(mig.enabled()).isTrue();
        assertThat(mig.pending()).isTrue();
        assertThat(mig.devices())
                .containsExactly(
                        new MigDevice(
                                "MIG-00000000-0000-4000-8000-00000000a001", "2c.3g.40gb", 1, 0, 4, 4, 3, 2, 40192),
                        new MigDevice(
                                "MIG-00000000-0000-4000-8000-00000000a002", "1c.3g.40gb", 1, 1, 4, 4, 3, 1, 40192),
                        new MigDevice("MIG-00000000-0000-4000-8000-00000000a003", "2g.20gb", 5, 0, 0, 2, 2, 2, 20096),
                        new MigDevice("MIG-00000000-0000-4000-8000-00000000a004", "1g.10gb", 13, 0, 2, 1, 1, 1, 9856));
        assertThat(mig.outOfService())
                .contains(
                        "MIG mode is on (MIG devices 2c.3g.40gb, 1c.3g.40gb, 2g.20gb, 1g.10gb); it is not served whole"
                                + " or in shares");
    }

    @Test
    void aCardWhoseMigModeChangesAtItsNextResetIsOutOfServiceSayingSo() {
        List<Gpu> gpus = discover(NODE);

        assertThat(gpus.get(1).mig()).isEqualTo(new Mig(false, true, List.of()));
        assertThat(gpus.get(1).migEnabled()).isFalse();
        assertThat(gpus.get(1).mig().outOfService())
                .contains("MIG mode is off and becomes on at the card's next reset (nvidia-smi -r, or a reboot); until"
                        + " then it serves nothing");
        assertThat(gpus.get(2).mig()).isEqualTo(new Mig(true, false, List.of()));
        assertThat(gpus.get(2).mig().outOfService().orElseThrow()).startsWith("MIG mode is on and becomes off");
    }

    @Test
    void aCardThatCannotDoMigIsServedAsBefore() {
        Gpu t4 = discover(NODE).get(3);

        assertThat(t4.mig()).isEqualTo(Mig.OFF);
        assertThat(t4.mig().outOfService()).isEmpty();
    }

    @Test
    void withoutPermissionToReadPlacementsTheProfileComesFromTheMemoryAndTheStartIsUnknown() {
        Mig mig = discover(NODE + "fail nvmlDeviceGetGpuInstanceById 0 4\n")
                .getFirst()
                .mig();

        assertThat(mig.devices())
                .extracting(MigDevice::profile, MigDevice::start, MigDevice::memorySlices)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("2c.3g.40gb", -1, -1),
                        org.assertj.core.groups.Tuple.tuple("1c.3g.40gb", -1, -1),
                        org.assertj.core.groups.Tuple.tuple("2g.20gb", -1, -1),
                        org.assertj.core.groups.Tuple.tuple("1g.10gb", -1, -1));
    }

    @Test
    void aModelWithoutAGeometryNamesItsProfilesBySlicesAndMemory() {
        String unknown = NODE.replace(H100, "NVIDIA Future GPU");

        assertThat(discover(unknown).getFirst().mig().devices())
                .extracting(MigDevice::profile)
                .containsExactly("2c.3g.39gb", "1c.3g.39gb", "2g.20gb", "1g.10gb");
    }

    @Test
    void aMigDeviceNvmlCannotListFailsDiscoveryNamingTheCard() {
        NvmlStub.configure(NODE + "fail nvmlDeviceGetMigDeviceHandleByIndex 0 999\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThatThrownBy(nvml::discover)
                    .isInstanceOf(DiscoveryException.class)
                    .hasMessageContaining("nvmlDeviceGetMigDeviceHandleByIndex")
                    .hasMessageContaining("for MIG device 0 of card 0");
        }
    }
}
