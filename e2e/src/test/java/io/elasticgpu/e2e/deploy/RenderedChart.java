package io.elasticgpu.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The chart as {@code deploy/bin/check-chart} renders it, for the tests that send it to the real apiserver. */
public final class RenderedChart {

    public static final Path DEPLOY = Path.of(System.getProperty(
            "egpu.deploy.dir",
            Path.of(System.getProperty("egpu.e2e.dir", "e2e"))
                    .resolveSibling("deploy")
                    .toString()));

    private static String helm;
    private static String kubeVersion;

    private RenderedChart() {}

    /** Runs deploy/bin/{name}, which must succeed; answers its output (also in deploy/target/{name}.log). */
    public static String script(String name) throws IOException, InterruptedException {
        Path log = DEPLOY.resolve("target").resolve(name + ".log");
        Files.createDirectories(log.getParent());
        Process process = new ProcessBuilder(DEPLOY.resolve("bin").resolve(name).toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        assertThat(process.waitFor(15, TimeUnit.MINUTES))
                .as("%s finished within 15 minutes", name)
                .isTrue();
        assertThat(process.exitValue())
                .as("%s's exit code; its output:%n%s", name, Files.readString(log))
                .isZero();
        return Files.readString(log);
    }

    /**
     * {@code helm template elastic-gpu} of the chart with {@code options}, for the Kubernetes version the e2e control
     * plane runs, with helm from {@code deploy/bin/build-helm} (built when missing); helm must succeed.
     */
    public static synchronized String template(List<String> options) throws IOException, InterruptedException {
        if (helm == null) {
            script("build-helm");
            helm = run(DEPLOY.resolve("bin/build-helm").toString(), "--print-path")
                    .strip();
            kubeVersion = Files.readAllLines(DEPLOY.resolveSibling("e2e").resolve("versions.env")).stream()
                    .filter(l -> l.startsWith("KUBERNETES_VERSION="))
                    .map(l -> l.substring("KUBERNETES_VERSION=".length()))
                    .findFirst()
                    .orElseThrow();
        }
        List<String> command = new ArrayList<>(List.of(
                helm,
                "template",
                "elastic-gpu",
                DEPLOY.resolve("helm/elastic-gpu").toString(),
                "--kube-version",
                kubeVersion));
        command.addAll(options);
        return run(command.toArray(String[]::new));
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(2, TimeUnit.MINUTES))
                .as("%s finished", String.join(" ", command))
                .isTrue();
        assertThat(process.exitValue())
                .as("%s: %s", String.join(" ", command), out)
                .isZero();
        return out;
    }

    /** The objects check-chart rendered into deploy/target/elastic-gpu-{variant}.yaml. */
    public static List<HasMetadata> rendered(KubernetesClient client, String variant) {
        return load(client, DEPLOY.resolve("target").resolve("elastic-gpu-" + variant + ".yaml"));
    }

    /**
     * The arguments of a container running egpu, with {@code --config FILE} replaced by the flags its file stands for
     * ({@link io.elasticgpu.cli.Egpu#flagsOf}): the file is the ConfigMap among {@code objects} that {@code pod} mounts
     * at the file's directory.
     */
    public static List<String> arguments(List<HasMetadata> objects, PodSpec pod, Container container) {
        List<String> args = container.getArgs();
        int at = args.indexOf("--config");
        if (at < 0) {
            return args;
        }
        Path file = Path.of(args.get(at + 1));
        String volume = container.getVolumeMounts().stream()
                .filter(m -> Path.of(m.getMountPath()).equals(file.getParent()))
                .map(VolumeMount::getName)
                .findFirst()
                .orElseThrow(() -> new AssertionError("nothing is mounted where --config " + file + " points"));
        String name = pod.getVolumes().stream()
                .filter(v -> v.getName().equals(volume) && v.getConfigMap() != null)
                .map(v -> v.getConfigMap().getName())
                .findFirst()
                .orElseThrow(() -> new AssertionError("volume " + volume + " is no ConfigMap"));
        String text = objects.stream()
                .filter(ConfigMap.class::isInstance)
                .map(ConfigMap.class::cast)
                .filter(c -> c.getMetadata().getName().equals(name))
                .map(c -> c.getData().get(file.getFileName().toString()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no ConfigMap " + name + " with " + file.getFileName()));
        List<String> out = new java.util.ArrayList<>(args.subList(0, at));
        out.addAll(io.elasticgpu.cli.Egpu.flagsOf(args.getFirst(), text));
        out.addAll(args.subList(at + 2, args.size()));
        return out;
    }

    /** The objects of a multi-document YAML file. */
    public static List<HasMetadata> load(KubernetesClient client, Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            List<HasMetadata> objects = client.load(in).items();
            assertThat(objects).as("objects in %s", file).isNotEmpty().doesNotContainNull();
            return objects;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
