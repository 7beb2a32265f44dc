package io.elasticgpu.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What the harness takes from the rendered chart: the scheduler's configuration and the extender's command. */
class ChartConfigTest {

    private static final String RENDERED = """
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: elastic-gpu-scheduler-config
            data:
              config.yaml: |
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                leaderElection:
                  leaderElect: true
                  resourceName: elastic-gpu-scheduler
                percentageOfNodesToScore: 100
                profiles:
                - schedulerName: elastic-gpu-scheduler
                extenders:
                - urlPrefix: "http://127.0.0.1:8888"
                  filterVerb: filter
                  bindVerb: bind
                - urlPrefix: "http://127.0.0.1:8888"
                  filterVerb: filter
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: elastic-gpu-extender-config
            data:
              config.yaml: |
                version: v1
                scheduler:
                  listen: 127.0.0.1:8888
                  metricsListen: 0.0.0.0:9402
                  policy: elastic
                  memoryBlockMib: 16
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: elastic-gpu-scheduler
            spec:
              template:
                spec:
                  containers:
                  - name: kube-scheduler
                    command: [kube-scheduler]
                  - name: extender
                    args: [scheduler, --config, /etc/egpu/config.yaml]
                    env:
                    - name: JAVA_TOOL_OPTIONS
                      value: "-XX:+UseSerialGC -XX:MaxRAMPercentage=75"
                    resources:
                      limits: {memory: 512Mi}
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: elastic-gpu-elastic-gpu-controller
            spec:
              template:
                spec:
                  containers:
                  - name: controller
                    args: [controller]
                    env:
                    - name: JAVA_TOOL_OPTIONS
                      value: "-XX:+UseSerialGC -XX:MaxRAMPercentage=50"
                    resources:
                      limits: {memory: 256Mi}
            """;

    @Test
    void theSchedulerCallsTheExtenderHereWithoutLeaderElectionAndTheExtenderRunsAsTheChartRunsIt() {
        ChartConfig chart = ChartConfig.parse(RENDERED);
        var config = chart.withExtenderAt("http://127.0.0.1:1234");
        assertThat(config.path("extenders").findValuesAsText("urlPrefix"))
                .containsExactly("http://127.0.0.1:1234", "http://127.0.0.1:1234");
        assertThat(config.path("leaderElection").path("leaderElect").asBoolean())
                .isFalse();
        assertThat(config.path("percentageOfNodesToScore").asInt()).isEqualTo(100);
        assertThat(chart.withoutExtender().has("extenders")).isFalse();
        assertThat(chart.schedulerName()).isEqualTo("elastic-gpu-scheduler");
        assertThat(chart.extenderArgs()).containsExactly("--policy", "elastic", "--memory-block-mib", "16");
        assertThat(chart.extenderJvm()).containsExactly("-XX:+UseSerialGC", "-XX:MaxRAMPercentage=75", "-Xmx384m");
        assertThat(chart.extender().limitMib()).isEqualTo(512);
        assertThat(chart.controller().toolOptions()).containsExactly("-XX:+UseSerialGC", "-XX:MaxRAMPercentage=50");
        assertThat(chart.controller().heapSized()).endsWith("-Xmx128m");
    }

    @Test
    void aChartWithoutTheSchedulerOrTheExtenderIsNamedAsSuch() {
        assertThatThrownBy(() -> ChartConfig.parse("---\nkind: ConfigMap\nmetadata: {name: other}\n"))
                .hasMessageContaining("elastic-gpu-scheduler-config");
    }
}
