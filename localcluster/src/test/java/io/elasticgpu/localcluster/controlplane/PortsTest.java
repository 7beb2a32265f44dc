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
}
