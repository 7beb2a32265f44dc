package io.elasticgpu.localcluster.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code e2e/bin/cluster up} records in cluster.properties is what {@code status} and {@code down} read back. */
class DetachedClusterTest {

    @TempDir
    Path dir;

    @Test
    void whatDetachRecordsIsReadBack() {
        DetachedCluster written = new DetachedCluster(
                dir,
                Map.of("etcd", 11L, "kwok", 12L),
                Map.of("etcd", 20_001, "etcd-peer", 20_002, "kwok", 20_003),
                "https://127.0.0.1:20004",
                dir.resolve("kubeconfig"));
        written.write();

        assertThat(DetachedCluster.recorded(dir)).isTrue();
        assertThat(DetachedCluster.read(dir)).isEqualTo(written);
    }

    @Test
    void withoutARecordItSaysHowToStartACluster() {
        assertThat(DetachedCluster.recorded(dir)).isFalse();
        assertThatThrownBy(() -> DetachedCluster.read(dir))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("no cluster in " + dir + "; start one with: e2e/bin/cluster up");
    }

    @Test
    void aComponentWhoseProcessEndedIsNotRunningAndStoppingForgetsTheCluster() throws Exception {
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        long me = ProcessHandle.current().pid();
        DetachedCluster cluster = new DetachedCluster(
                dir,
                Map.of("etcd", ended.pid(), "kwok", me),
                Map.of("etcd", Ports.free()),
                "https://127.0.0.1:1",
                dir.resolve("kubeconfig"));
        cluster.write();

        assertThat(cluster.running("etcd")).isFalse();
        assertThat(cluster.running("kwok")).isTrue();
        assertThat(cluster.running("kube-apiserver")).as("not recorded").isFalse();
        assertThat(cluster.alive()).isFalse();

        DetachedCluster endedOnly = new DetachedCluster(
                dir, Map.of("etcd", ended.pid()), cluster.ports(), cluster.server(), cluster.kubeconfig());
        assertThat(endedOnly.stop()).as("ports still bound").isEmpty();
        assertThat(DetachedCluster.recorded(dir)).isFalse();
    }
}
