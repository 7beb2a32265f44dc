package io.elasticgpu.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The chart's RBAC on the real apiserver, for the tests that prove a component's grants are what it uses: apply the
 * rendered ServiceAccounts, roles and bindings, run the component with a token of its ServiceAccount, then compare
 * its grants with the calls the apiserver's audit log recorded for it. Calls and grants are both written
 * {@code "group/resource[/subresource] verb"}.
 */
final class ChartRbac {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a ServiceAccount called, by call, and which of its calls were refused (403). */
    record Calls(Map<String, Integer> used, Set<String> refused) {}

    /** The chart's RBAC applied, and one component's ServiceAccount, grants and kubeconfig. */
    record Installed(String account, Set<String> grants, Path kubeconfig) {}

    private ChartRbac() {}

    /**
     * Renders the chart with its default values (deploy/bin/check-chart), applies its RBAC, and answers what the
     * component labelled {@code component} runs with: the ServiceAccount the binding {@code binding} names.
     */
    static Installed install(TestCluster cluster, String component, String binding) throws Exception {
        return install(cluster, "defaults", component, binding);
    }

    /** The same with the chart rendered as {@code variant} ("defaults" or "all-options", see check-chart). */
    static Installed install(TestCluster cluster, String variant, String component, String binding) throws Exception {
        assertThat(RenderedChart.script("check-chart")).contains("chart OK");
        List<HasMetadata> chart = RenderedChart.rendered(cluster.client(), variant);
        apply(cluster.client(), chart);
        String account = accountOf(chart, binding);
        return new Installed(account, grants(chart, component), kubeconfigOf(cluster, account));
    }

    /** Creates the rendered ServiceAccounts, roles and bindings in {@link ControlPlane#AUDITED_NAMESPACE}. */
    static void apply(KubernetesClient client, List<HasMetadata> chart) {
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(ControlPlane.AUDITED_NAMESPACE)
                        .endMetadata()
                        .build())
                .serverSideApply();
        for (HasMetadata o : chart) {
            if (o instanceof ServiceAccount
                    || o instanceof ClusterRole
                    || o instanceof ClusterRoleBinding
                    || o instanceof Role
                    || o instanceof RoleBinding) {
                client.resource(o).forceConflicts().serverSideApply();
            }
        }
    }

    /** The ServiceAccount the binding named {@code binding} grants to. */
    static String accountOf(List<HasMetadata> chart, String binding) {
        return chart.stream()
                .filter(o -> o instanceof RoleBinding || o instanceof ClusterRoleBinding)
                .filter(o -> o.getMetadata().getName().equals(binding))
                .findFirst()
                .map(o -> o instanceof RoleBinding r
                        ? r.getSubjects().getFirst().getName()
                        : ((ClusterRoleBinding) o).getSubjects().getFirst().getName())
                .orElseThrow(() -> new AssertionError("no binding " + binding + " in the rendered chart"));
    }

    /** Every verb of the roles labelled with {@code component} (app.kubernetes.io/component). */
    static Set<String> grants(List<HasMetadata> chart, String component) {
        Set<String> grants = new TreeSet<>();
        for (HasMetadata o : chart) {
            boolean its = component.equals(o.getMetadata().getLabels().get("app.kubernetes.io/component"));
            List<PolicyRule> rules = o instanceof ClusterRole c && its
                    ? c.getRules()
                    : o instanceof Role r && its ? r.getRules() : List.of();
            for (PolicyRule rule : rules) {
                for (String group : rule.getApiGroups()) {
                    for (String resource : rule.getResources()) {
                        rule.getVerbs().forEach(verb -> grants.add(group + "/" + resource + " " + verb));
                    }
                }
            }
        }
        assertThat(grants)
                .as("the %s's grants in the rendered chart", component)
                .isNotEmpty();
        return grants;
    }

    /** The calls the audit log recorded for {@code account}. */
    static Calls calls(ControlPlane cp, String account) throws IOException {
        return calls(cp, account, Instant.EPOCH);
    }

    /** The calls the audit log recorded for {@code account} from {@code since} on (a test sharing the account). */
    static Calls calls(ControlPlane cp, String account, Instant since) throws IOException {
        Map<String, Integer> used = new TreeMap<>();
        Set<String> refused = new TreeSet<>();
        String user = "system:serviceaccount:" + ControlPlane.AUDITED_NAMESPACE + ":" + account;
        for (String line : Files.readAllLines(cp.auditLog())) {
            JsonNode event = JSON.readTree(line);
            if (!event.path("user").path("username").asText().equals(user)
                    || Instant.parse(event.path("requestReceivedTimestamp").asText())
                            .isBefore(since)) {
                continue;
            }
            JsonNode ref = event.path("objectRef");
            if (ref.isMissingNode()) {
                continue; // API discovery (/apis/...), open to every authenticated user, not a grant of the chart
            }
            String sub = ref.path("subresource").asText("");
            String call = ref.path("apiGroup").asText("") + "/"
                    + ref.path("resource").asText() + (sub.isEmpty() ? "" : "/" + sub) + " "
                    + event.path("verb").asText();
            used.merge(call, 1, Integer::sum);
            if (event.path("verb").asText().equals("patch")
                    && event.path("responseStatus").path("code").asInt() == 201) {
                // A server-side apply that created the object: the apiserver authorized it as create as well.
                used.merge(call.replaceFirst(" patch$", " create"), 1, Integer::sum);
            }
            if (event.path("responseStatus").path("code").asInt() == 403) {
                refused.add(call);
            }
        }
        return new Calls(used, refused);
    }

    /** Nothing refused, every grant used, nothing called outside the grants. */
    static void assertLeastPrivilege(String component, Set<String> granted, Calls calls) {
        System.out.printf("%s RBAC: granted %s%n  used %s%n", component, granted, calls.used());
        assertThat(calls.refused())
                .as("calls the chart's RBAC refused the %s", component)
                .isEmpty();
        assertThat(granted)
                .as("verbs granted to the %s and never used", component)
                .allSatisfy(g -> assertThat(calls.used()).containsKey(g));
        assertThat(calls.used().keySet())
                .as("calls outside the %s's own grants", component)
                .isSubsetOf(granted);
    }

    /** A kubeconfig with a token of {@code account}: what the pod's projected token gives the component. */
    static Path kubeconfigOf(TestCluster cluster, String account) throws IOException {
        String token = cluster.client()
                .serviceAccounts()
                .inNamespace(ControlPlane.AUDITED_NAMESPACE)
                .withName(account)
                .tokenRequest(new TokenRequestBuilder()
                        .withNewSpec()
                        .withExpirationSeconds(3600L)
                        .endSpec()
                        .build())
                .getStatus()
                .getToken();
        ControlPlane cp = cluster.controlPlane();
        return Files.writeString(cp.workDir().resolve("kubeconfig-" + account), """
                apiVersion: v1
                kind: Config
                clusters:
                - name: e2e
                  cluster: {server: "%s", certificate-authority: "%s"}
                users:
                - name: %s
                  user: {token: "%s"}
                contexts:
                - name: e2e
                  context: {cluster: e2e, user: %s}
                current-context: e2e
                """.formatted(
                        cp.server(), cp.credentials().certificate("ca"), account, token, account));
    }
}
