package io.elasticgpu.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;

/** What an {@link ElasticGPU} is and who holds it; mutable bean because fabric8 and Jackson fill it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ElasticGPUSpec {

    /** The claim an ElasticGPU is bound to. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ClaimReference {
        @Required
        private String namespace;

        @Required
        private String name;

        private String uid;

        public String getNamespace() {
            return namespace;
        }

        public void setNamespace(String namespace) {
            this.namespace = namespace;
        }

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public String getUid() {
            return uid;
        }

        public void setUid(String uid) {
            this.uid = uid;
        }
    }

    /** The pod and container using an ElasticGPU, for the cluster view. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class PodReference {
        @Required
        private String namespace;

        @Required
        private String name;

        private String container;

        public String getNamespace() {
            return namespace;
        }

        public void setNamespace(String namespace) {
            this.namespace = namespace;
        }

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public String getContainer() {
            return container;
        }

        public void setContainer(String container) {
            this.container = container;
        }
    }

    private Map<String, Quantity> capacity;

    @Required
    private ElasticGPUSource source;

    private ClaimReference claimRef;
    private String nodeName;
    private PodReference podRef;

    /** How much GPU this is, keyed like a claim's requests ({@link ResourceNames}). */
    public Map<String, Quantity> getCapacity() {
        return capacity;
    }

    public void setCapacity(Map<String, Quantity> capacity) {
        this.capacity = capacity;
    }

    public ElasticGPUSource getSource() {
        return source;
    }

    public void setSource(ElasticGPUSource source) {
        this.source = source;
    }

    public ClaimReference getClaimRef() {
        return claimRef;
    }

    public void setClaimRef(ClaimReference claimRef) {
        this.claimRef = claimRef;
    }

    /** The node this ElasticGPU can be used on only. */
    public String getNodeName() {
        return nodeName;
    }

    public void setNodeName(String nodeName) {
        this.nodeName = nodeName;
    }

    public PodReference getPodRef() {
        return podRef;
    }

    public void setPodRef(PodReference podRef) {
        this.podRef = podRef;
    }
}
