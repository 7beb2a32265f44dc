package io.elasticgpu.cli;

import io.elasticgpu.api.v1alpha1.DraApi;
import io.elasticgpu.controller.view.ClusterView;
import io.elasticgpu.controller.view.Scope;
import io.elasticgpu.controller.view.ViewFormat;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.core.model.Precision;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code egpu inspect}: lists nodes, pods and claims once, prints who holds which card, what each holder was granted
 * there and, where the node agent measured it, what it uses, and the TFLOPS still free per card and node in one
 * precision by the model table. Reads only; writes nothing.
 */
@Command(
        name = "inspect",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description =
                "Show every GPU card in the cluster, the pods holding it, what they are granted and what they use.")
final class InspectCommand implements Callable<Integer> {

    /** Where the nodes and pods come from: the API server, or a fixed list in tests. */
    @FunctionalInterface
    interface Source {
        Listing list(Path kubeconfig);
    }

    /** Every node, and every pod and DRA ResourceClaim of every namespace, as listed. */
    record Listing(List<Node> nodes, List<Pod> pods, List<ResourceClaim> claims) {
        Listing(List<Node> nodes, List<Pod> pods) {
            this(nodes, pods, List.of());
        }
    }

    @Mixin
    KubeconfigOption kubeconfig;

    @Option(names = "--node", paramLabel = "NAME", description = "Only this node.")
    String node;

    @Option(
            names = "--namespace",
            paramLabel = "NS",
            description = "Only the pods of this namespace; usage figures still count every namespace.")
    String namespace;

    @Option(
            names = {"-o", "--output"},
            paramLabel = "table|wide|json|yaml",
            defaultValue = "table",
            converter = FormatConverter.class,
            description = "Output format (default: ${DEFAULT-VALUE}).")
    ViewFormat format;

    @Option(
            names = "--precision",
            paramLabel = "PRECISION",
            defaultValue = "bf16",
            converter = PrecisionConverter.class,
            description = "Free TFLOPS per card and node in this precision: fp32, tf32, fp16, bf16 or int8"
                    + " (default: ${DEFAULT-VALUE}).")
    Precision precision;

    @Option(
            names = "--model-table",
            paramLabel = "FILE.csv",
            description = "Card models' peak TFLOPS that extend and override the shipped table, as the extender's"
                    + " --model-table (rows as in gpu-models.csv).")
    Path modelTable;

    @Option(
            names = "--extender",
            paramLabel = "URL",
            description = "Instead of the cluster, show what the extender at URL (its --listen address, e.g."
                    + " http://127.0.0.1:8888) believes: its cache, compared with a fresh list from the API, each"
                    + " difference named. Exit code 1 when there is one. With -o json, the extender's whole answer.")
    java.net.URI extender;

    @Spec
    CommandSpec spec;

    private final Source source;

    InspectCommand() {
        this(InspectCommand::fromApiServer);
    }

    InspectCommand(Source source) {
        this.source = source;
    }

    @Override
    public Integer call() {
        if (extender != null) {
            return extenderCache();
        }
        Listing listing;
        try {
            listing = source.list(kubeconfig.path());
        } catch (KubernetesClientException e) {
            spec.commandLine().getErr().println("egpu inspect: cannot list nodes and pods: " + e.getMessage());
            return Egpu.UNAVAILABLE;
        }
        ModelTable models = ModelTableOption.read(modelTable);
        ClusterView view = ClusterView.of(
                listing.nodes(), listing.pods(), listing.claims(), new Scope(node, namespace), models, precision);
        spec.commandLine().getOut().print(format.render(view));
        spec.commandLine().getOut().flush();
        return 0;
    }

    private int extenderCache() {
        com.fasterxml.jackson.databind.JsonNode report;
        try {
            report = ExtenderCache.fetch(extender);
        } catch (java.io.IOException e) {
            spec.commandLine().getErr().println("egpu inspect: cannot ask the extender: " + e.getMessage());
            return Egpu.UNAVAILABLE;
        }
        var out = spec.commandLine().getOut();
        if (format == ViewFormat.JSON) {
            out.println(report.toPrettyString());
        } else {
            ExtenderCache.summary(report).forEach(out::println);
        }
        out.flush();
        return report.path("differences").isEmpty() ? 0 : 1;
    }

    private static Listing fromApiServer(Path kubeconfig) {
        try (KubernetesClient client = KubernetesClients.create(kubeconfig)) {
            // Before Kubernetes 1.34 there is no resource.k8s.io/v1, and no claim can hold a card.
            List<ResourceClaim> claims = DraApi.served(client)
                    ? client.resources(ResourceClaim.class)
                            .inAnyNamespace()
                            .list()
                            .getItems()
                    : List.of();
            return new Listing(
                    client.nodes().list().getItems(),
                    client.pods().inAnyNamespace().list().getItems(),
                    claims);
        }
    }

    /** {@code --precision fp64} is a usage error (exit 2) that names the known precisions. */
    static final class PrecisionConverter implements CommandLine.ITypeConverter<Precision> {
        @Override
        public Precision convert(String value) {
            try {
                return Precision.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code -o xml} is a usage error (exit 2) that lists the formats. */
    static final class FormatConverter implements CommandLine.ITypeConverter<ViewFormat> {
        @Override
        public ViewFormat convert(String value) {
            try {
                return ViewFormat.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
