package io.elasticgpu.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The CRDs the build generates from the model classes, read back from the classpath as the e2e test applies them. */
class ElasticGPUCrdsTest {

    static CustomResourceDefinition crd(String plural) {
        String resource = "META-INF/fabric8/" + plural + ".elasticgpu.io-v1.yml";
        try (InputStream in = ElasticGPUCrdsTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as("generated %s on the classpath", resource).isNotNull();
            return Serialization.unmarshal(in, CustomResourceDefinition.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static CustomResourceDefinitionVersion onlyVersion(CustomResourceDefinition crd) {
        assertThat(crd.getSpec().getVersions()).hasSize(1);
        return crd.getSpec().getVersions().getFirst();
    }

    static JSONSchemaProps at(CustomResourceDefinition crd, String... path) {
        JSONSchemaProps schema = onlyVersion(crd).getSchema().getOpenAPIV3Schema();
        for (String p : path) {
            schema = schema.getProperties().get(p);
            assertThat(schema).as("schema property %s", p).isNotNull();
        }
        return schema;
    }

    static List<String> messages(JSONSchemaProps schema) {
        return schema.getXKubernetesValidations().stream()
                .map(ValidationRule::getMessage)
                .toList();
    }

    @ParameterizedTest(name = "{0}: kind {1}, {2}, short name {3}, status subresource {4}")
    @CsvSource({
        "elasticgpuclasses, ElasticGPUClass, Cluster,    egpuclass, false",
        "elasticgpuclaims,  ElasticGPUClaim, Namespaced, egpuc,     true",
        "elasticgpus,       ElasticGPU,      Cluster,    egpu,      true",
    })
    void eachCrdHasItsNamesScopeAndStatusSubresource(
            String plural, String kind, String scope, String shortName, boolean status) {
        CustomResourceDefinition crd = crd(plural);

        assertThat(crd.getMetadata().getName()).isEqualTo(plural + ".elasticgpu.io");
        assertThat(crd.getSpec().getGroup()).isEqualTo("elasticgpu.io");
        assertThat(crd.getSpec().getNames().getKind()).isEqualTo(kind);
        assertThat(crd.getSpec().getNames().getShortNames()).containsExactly(shortName);
        assertThat(crd.getSpec().getScope()).isEqualTo(scope);
        CustomResourceDefinitionVersion version = onlyVersion(crd);
        assertThat(version.getName()).isEqualTo("v1alpha1");
        assertThat(version.getServed()).isTrue();
        assertThat(version.getStorage()).isTrue();
        assertThat(version.getSubresources() != null
                        && version.getSubresources().getStatus() != null)
                .isEqualTo(status);
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                // The generator orders columns by JSON path; kubectl shows them in that order after NAME.
                "elasticgpuclasses | Age=.metadata.creationTimestamp, Binding Mode=.spec.bindingMode, "
                        + "Provisioner=.spec.provisioner, Reclaim Policy=.spec.reclaimPolicy",
                "elasticgpuclaims  | Age=.metadata.creationTimestamp, Class=.spec.elasticGPUClassName, "
                        + "Requests=.spec.resources.requests, ElasticGPU=.status.elasticGPUName, Phase=.status.phase",
                "elasticgpus       | Age=.metadata.creationTimestamp, Claim=.spec.claimRef.name, "
                        + "Claim Namespace=.spec.claimRef.namespace, Node=.spec.nodeName, Pod=.spec.podRef.name, "
                        + "Card=.spec.source.*.index, Phase=.status.phase",
            })
    void eachCrdHasItsPrinterColumns(String plural, String columns) {
        List<String> actual = onlyVersion(crd(plural)).getAdditionalPrinterColumns().stream()
                .map(c -> c.getName() + "=" + c.getJsonPath())
                .toList();

        assertThat(String.join(", ", actual)).isEqualTo(columns);
        assertThat(onlyVersion(crd(plural)).getAdditionalPrinterColumns())
                .filteredOn(c -> c.getName().equals("Age"))
                .map(CustomResourceColumnDefinition::getType)
                .containsExactly("date");
    }

    @Test
    void theClassDefaultsItsPoliciesAndListsItsProvisioners() {
        CustomResourceDefinition crd = crd("elasticgpuclasses");

        assertThat(at(crd, "spec").getRequired()).containsExactly("provisioner");
        assertThat(at(crd, "spec", "provisioner").getEnum())
                .map(Object::toString)
                .containsExactlyInAnyOrder(
                        "\"elasticgpu.io/physical\"", "\"elasticgpu.io/gpushare\"", "\"elasticgpu.io/qgpu\"");
        assertThat(at(crd, "spec", "reclaimPolicy").getDefault().asText()).isEqualTo("Delete");
        assertThat(at(crd, "spec", "bindingMode").getDefault().asText()).isEqualTo("WaitForFirstConsumer");
        assertThat(at(crd, "spec", "parameters")
                        .getAdditionalProperties()
                        .getSchema()
                        .getType())
                .isEqualTo("string");
    }

    @Test
    void theClaimsRequestsCarryEveryCelRuleWithItsMessage() {
        CustomResourceDefinition crd = crd("elasticgpuclaims");
        JSONSchemaProps requests = at(crd, "spec", "resources", "requests");

        assertThat(messages(requests))
                .containsExactly(
                        ValidationMessages.REQUESTS_EMPTY,
                        ValidationMessages.REQUESTS_UNKNOWN_NAME,
                        ValidationMessages.REQUESTS_NOT_POSITIVE,
                        ValidationMessages.WHOLE_AND_SLICE,
                        ValidationMessages.CORE_ABOVE_ONE_CARD,
                        ValidationMessages.COUNT_WITHOUT_SLICE,
                        ValidationMessages.TFLOPS_WITH_MEMORY_ALONE);
        assertThat(requests.getXKubernetesValidations().get(4).getMessageExpression())
                .isEqualTo("'" + ValidationMessages.CORE_ABOVE_ONE_CARD
                        + ", was ' + string(self['elasticgpu.io/gpu-core'])");
        assertThat(requests.getMaxProperties()).isEqualTo(5L);
        assertThat(requests.getAdditionalProperties().getSchema().getXKubernetesIntOrString())
                .isTrue();
        assertThat(at(crd, "spec").getRequired()).containsExactlyInAnyOrder("elasticGPUClassName", "resources");
        assertThat(at(crd, "status", "phase").getEnum())
                .map(Object::toString)
                .containsExactlyInAnyOrder("\"Pending\"", "\"Bound\"", "\"Lost\"");
    }

    @Test
    void aBoundClaimsSpecIsGuardedByATransitionRuleOnTheWholeObject() {
        JSONSchemaProps root = at(crd("elasticgpuclaims"));

        assertThat(root.getXKubernetesValidations())
                .filteredOn(rule -> rule.getRule().contains("oldSelf"))
                .singleElement()
                .satisfies(rule -> {
                    assertThat(rule.getMessage()).isEqualTo(ValidationMessages.CLAIM_SPEC_IMMUTABLE_WHEN_BOUND);
                    assertThat(rule.getRule())
                            .contains("oldSelf.status.phase != 'Bound'")
                            .contains("self.spec == oldSelf.spec");
                });
    }

    @Test
    void aClaimsTflopsPrecisionIsOneOfTheKnownAndOnlyWithTflops() {
        CustomResourceDefinition crd = crd("elasticgpuclaims");
        JSONSchemaProps precision = at(crd, "spec", "tflopsPrecision");

        assertThat(precision.getType()).isEqualTo("string");
        assertThat(precision.getXKubernetesValidations()).singleElement().satisfies(rule -> {
            assertThat(rule.getRule()).isEqualTo("self in ['fp32', 'tf32', 'fp16', 'bf16', 'int8']");
            assertThat(rule.getMessage()).isEqualTo(ValidationMessages.TFLOPS_PRECISION_UNKNOWN);
            assertThat(rule.getMessageExpression())
                    .isEqualTo("'" + ValidationMessages.TFLOPS_PRECISION_UNKNOWN + ", was ' + self");
        });
        assertThat(at(crd, "spec").getRequired()).doesNotContain("tflopsPrecision");
        assertThat(at(crd).getXKubernetesValidations())
                .filteredOn(rule -> rule.getMessage().equals(ValidationMessages.TFLOPS_PRECISION_WITHOUT_TFLOPS))
                .singleElement()
                .satisfies(rule -> assertThat(rule.getRule())
                        .isEqualTo("!has(self.spec.tflopsPrecision)"
                                + " || 'elasticgpu.io/gpu-tflops' in self.spec.resources.requests"));
    }

    @Test
    void anElasticGpuHasExactlyOneSourceAndOptionalReferences() {
        CustomResourceDefinition crd = crd("elasticgpus");

        assertThat(messages(at(crd, "spec", "source"))).containsExactly(ValidationMessages.EXACTLY_ONE_SOURCE);
        assertThat(at(crd, "spec", "source").getProperties()).containsOnlyKeys("physical", "gpuShare", "qGPU");
        for (String source : List.of("physical", "gpuShare", "qGPU")) {
            assertThat(at(crd, "spec", "source", source).getProperties()).containsOnlyKeys("nodeName", "index", "uuid");
            assertThat(at(crd, "spec", "source", source).getRequired()).containsExactlyInAnyOrder("nodeName", "index");
        }
        assertThat(at(crd, "spec").getRequired()).containsExactly("source");
        assertThat(at(crd, "spec", "claimRef").getProperties()).containsOnlyKeys("namespace", "name", "uid");
        assertThat(at(crd, "spec", "podRef").getProperties()).containsOnlyKeys("namespace", "name", "container");
        assertThat(at(crd, "status", "phase").getEnum())
                .map(Object::toString)
                .containsExactlyInAnyOrder("\"Available\"", "\"Bound\"", "\"Released\"", "\"Failed\"");
    }

    @Test
    void theModelWritesTheJsonTheSchemaDescribes() {
        ElasticGPUClassSpec classSpec = new ElasticGPUClassSpec();
        classSpec.setProvisioner(ElasticGPUClassSpec.Provisioner.QGPU);
        classSpec.setParameters(Map.of("isolation", "strict"));
        ElasticGPUSource.Card card = new ElasticGPUSource.Card();
        card.setNodeName("gpu-1");
        card.setIndex(3);
        ElasticGPUSource source = new ElasticGPUSource();
        source.setQGPU(card);

        assertThat(Serialization.asJson(classSpec))
                .isEqualTo("{\"provisioner\":\"elasticgpu.io/qgpu\",\"parameters\":{\"isolation\":\"strict\"}}");
        assertThat(Serialization.asJson(source)).isEqualTo("{\"qGPU\":{\"nodeName\":\"gpu-1\",\"index\":3}}");
        assertThat(Serialization.unmarshal(Serialization.asJson(source), ElasticGPUSource.class)
                        .getQGPU()
                        .getIndex())
                .isEqualTo(3);
        assertThat(ValidationMessages.coreAboveOneCard("150")).endsWith("elasticgpu.io/gpu-count, was 150");
    }
}
