package io.elasticgpu.e2e.junit;

import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.realnode.HostCheck;
import io.elasticgpu.localcluster.realnode.NodePrograms;
import io.elasticgpu.localcluster.realnode.RealNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives end-to-end tests a real node (kubelet, containerd, runc) joined to the run's control plane: a {@link RealNode}
 * parameter anywhere, class set-up included, next to {@link ControlPlaneExtension}. It starts once per test run, on
 * first use, and stops (its containers, mounts, network and cgroups undone) when the run ends, before the control
 * plane. On a machine that cannot run it the tests are skipped with the one sentence that says what is missing, or
 * fail with it when {@code -Degpu.real-node.required=true} (CI).
 */
public final class RealNodeExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(RealNodeExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == RealNode.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return shared(context);
    }

    /** The run's real node, started on first use; the reason it cannot run, for every test that asks again. */
    public static RealNode shared(ExtensionContext context) {
        ControlPlane controlPlane = ControlPlaneExtension.shared(context);
        Object node = context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent("real-node", k -> start(controlPlane));
        return switch (node) {
            case RealNode started -> started;
            case String reason
            when Boolean.getBoolean("egpu.real-node.required") ->
                throw new IllegalStateException(reason + " (-Degpu.real-node.required=true)");
            case String reason -> Assumptions.abort(reason);
            // a start that failed fails every test that asks again, at once, rather than trying for minutes each time
            case RuntimeException failed ->
                throw new IllegalStateException("the real node did not start: " + failed.getMessage(), failed);
            default -> throw new IllegalStateException("unexpected " + node);
        };
    }

    /** The node, the sentence saying why this machine cannot run one, or the exception its start ended with. */
    private static Object start(ControlPlane controlPlane) {
        NodePrograms programs = NodePrograms.locate(Path.of(System.getProperty("egpu.e2e.dir", ".")));
        if (HostCheck.check(programs) instanceof HostCheck.Verdict.CannotRun(String reason)) {
            return reason;
        }
        try {
            return RealNode.start(controlPlane, RealNode.Options.of(controlPlane, programs));
        } catch (RuntimeException e) {
            return e;
        }
    }
}
