package io.elasticgpu.localcluster.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class PortsTest {

    @Test
    void aTakenPortIsReportedWithWhatItWasFor() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThat(Ports.isFree(port)).isFalse();
            assertThatThrownBy(() -> Ports.requireFree(port, "kube-apiserver"))
                    .hasMessage(
                            ("port %d on 127.0.0.1 (for kube-apiserver) is taken by another process; stop it or pick "
                                            + "another port")
                                    .formatted(port));
        }
    }

    @Test
    void aFreePortIsFree() {
        assertThat(Ports.isFree(Ports.free())).isTrue();
    }

    @Test
    void aComponentThatFoundItsPortTakenIsStartedAgainOnAnotherPortThreeTimesAtMost() {
        java.util.Map<String, Integer> ports = new java.util.HashMap<>(java.util.Map.of("kwok", 20_001));
        java.util.List<Integer> tried = new java.util.ArrayList<>();
        Runnable takenOnce = () -> {
            tried.add(ports.get("kwok"));
            if (tried.size() == 1) {
                throw new IllegalStateException("kwok exited with status 1 while starting; the end of kwok.log:\n"
                        + "listen tcp 127.0.0.1:20001: bind: address already in use");
            }
        };

        Ports.startRebinding("kwok", ports, takenOnce);

        assertThat(tried).hasSize(2).first().isEqualTo(20_001);
        assertThat(ports.get("kwok"))
                .as("the port it runs on")
                .isEqualTo(tried.get(1))
                .isNotEqualTo(20_001);

        tried.clear();
        assertThatThrownBy(() -> Ports.startRebinding("kwok", ports, () -> {
                    tried.add(ports.get("kwok"));
                    throw new IllegalStateException("bind: address already in use");
                }))
                .hasMessageContaining("address already in use");
        assertThat(tried).as("three starts, then it gives up").hasSize(3);

        tried.clear();
        assertThatThrownBy(() -> Ports.startRebinding("kwok", ports, () -> {
                    tried.add(ports.get("kwok"));
                    throw new IllegalStateException("kwok was not ready after 60 s");
                }))
                .hasMessage("kwok was not ready after 60 s");
        assertThat(tried).as("another failure is not retried").hasSize(1);
    }
}
