package io.elasticgpu.bench.arena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.NodeInventory.Card;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class HamiRegistrationTest {

    private static List<String> fixtures() throws IOException {
        return HamiFixtures.lines("hami-register-fixtures.txt");
    }

    @Test
    void writesHamisOwnTestFixturesBackAsHamiReadsThem() throws IOException {
        List<String> fixtures = fixtures();
        assertThat(fixtures).hasSize(3);
        // HAMi's tests compare registrations by unmarshalling both sides; so do we: what we write from what we read
        // reads back the same.
        for (String fixture : fixtures) {
            List<HamiRegistration.Device> devices = HamiRegistration.read(fixture);
            assertThat(HamiRegistration.read(HamiRegistration.register(devices)))
                    .isEqualTo(devices);
        }
        assertThat(HamiRegistration.read(fixtures.get(1)))
                .containsExactly(
                        new HamiRegistration.Device("GPU-0", 0, 10, 8192, 100, "NVIDIA-A100", 0, "hami-core", true));
    }

    @Test
    void aCardIsRegisteredAsHamisDevicePluginRegistersItInItsDefaultMode() throws IOException {
        NodeInventory node = new NodeInventory(List.of(new Card(0, "GPU-0", "A100", 8192, true, -1)), List.of());

        String register =
                HamiRegistration.register(HamiRegistration.devices(node, HamiRegistration.DEFAULT_SPLIT_COUNT));

        // Field for field the second fixture (an A100 in hami-core mode), in Go's field order with zero values left
        // out.
        assertThat(HamiRegistration.read(register))
                .isEqualTo(HamiRegistration.read(fixtures().get(1)));
        assertThat(register)
                .isEqualTo("[{\"id\":\"GPU-0\",\"count\":10,\"devmem\":8192,\"devcore\":100,"
                        + "\"type\":\"NVIDIA-A100\",\"mode\":\"hami-core\",\"health\":true}]");
    }

    @Test
    void anUnhealthyCardAndAModelNamedByNvidiaAreKeptAsTheyAre() {
        NodeInventory node = new NodeInventory(
                List.of(
                        new Card(0, "GPU-a", "NVIDIA A100-SXM4-80GB", 81_920, true, 1),
                        new Card(1, "GPU-b", "NVIDIA A100-SXM4-80GB", 81_920, false, 1)),
                List.of());

        List<HamiRegistration.Device> devices = HamiRegistration.devices(node, 4);

        assertThat(devices).extracting(HamiRegistration.Device::type).containsOnly("NVIDIA A100-SXM4-80GB");
        assertThat(devices).extracting(HamiRegistration.Device::health).containsExactly(true, false);
        assertThat(devices).extracting(HamiRegistration.Device::index).containsExactly(0, 1);
        assertThat(devices).extracting(HamiRegistration.Device::numa).containsOnly(1);
    }

    @Test
    void theHandshakeIsAReportInGosDateTimeFormat() {
        assertThat(HamiRegistration.reported(Instant.parse("2026-11-25T09:05:07Z"), ZoneOffset.UTC))
                .isEqualTo("Reported_2026-11-25 09:05:07");
    }

    @Test
    void aValueThatIsNotARegistrationIsRefusedWithAMessage() {
        assertThatThrownBy(() -> HamiRegistration.read("not-valid-json"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a HAMi registration");
    }
}
