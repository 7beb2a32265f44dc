package io.elasticgpu.e2e.junit;

import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives end-to-end tests a real control plane: {@code @ExtendWith(ControlPlaneExtension.class)}, then a
 * {@link TestCluster} parameter in tests, or a {@link ControlPlane} parameter anywhere (class set-up included). The
 * control plane starts once per test run, on first use, in {@code e2e/target/control-plane-<time>} (its logs stay
 * there), and stops when the run ends, failed or not.
 */
public final class ControlPlaneExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(ControlPlaneExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == TestCluster.class || type == ControlPlane.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ControlPlane controlPlane = shared(context);
        if (parameter.getParameter().getType() == ControlPlane.class) {
            return controlPlane;
        }
        String namespace = namespaceFor(context);
        // Stored in the test's own store: closed (namespace deleted, client closed) when the test ends.
        return context.getStore(NAMESPACE)
                .getOrComputeIfAbsent("cluster", k -> new TestCluster(controlPlane, namespace), TestCluster.class);
    }

    /** The run's control plane, started on first use and closed with the root context at the end of the run. */
    public static ControlPlane shared(ExtensionContext context) {
        return context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent("control-plane", k -> start(), ControlPlane.class);
    }

    private static ControlPlane start() {
        Path e2e = Path.of(System.getProperty("egpu.e2e.dir", "."));
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path work = e2e.resolve("target").resolve("control-plane-" + stamp);
        return ControlPlane.start(ControlPlane.Options.of(work, Binaries.locate(e2e)));
    }

    private static String namespaceFor(ExtensionContext context) {
        String test = context.getRequiredTestMethod()
                .getName()
                .replaceAll("([a-z])([A-Z])", "$1-$2")
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9-]", "-");
        if (test.length() > 40) {
            test = test.substring(0, 40);
        }
        return ("e2e-" + test).replaceAll("-+$", "") + "-"
                + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
    }
}
