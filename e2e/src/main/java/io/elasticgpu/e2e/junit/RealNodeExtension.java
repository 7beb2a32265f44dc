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

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RealNodeExtension.class);

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
        if (node instanceof String reason) {
            if (Boolean.getBoolean("egpu.real-node.required")) {
                throw new IllegalStateException(reason + " (-Degpu.real-node.required=true)");
            }
            return Assumptions.abort(reason);
        }
        return (RealNode) node;
    }

    private static Object start(ControlPlane controlPlane) {
        NodePrograms programs = NodePrograms.locate(Path.of(System.getProperty("egpu.e2e.dir", ".")));
        if (HostCheck.check(programs) instanceof HostCheck.Verdict.CannotRun(String reason)) {
            return reason;
        }
        return RealNode.start(controlPlane, RealNode.Options.of(controlPlane, programs));
    }
}
