package io.elasticgpu.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.GpuAsk.Role;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link DraAsks#request} is the inverse of {@link DraAsks#of}: the request made for an ask (as an ElasticGPUClaim of
 * a DRA class gets one) is read back as the same cards and share, so the extender places it as it was asked.
 */
class DraAsksProperties {

    private static final long BLOCK = 256;

    @Provide
    Arbitrary<GpuAsk> asks() {
        Arbitrary<GpuAsk> wholeAsks = Arbitraries.integers()
                .between(1, 8)
                .map(cards -> GpuAsk.whole("claim/c/gpu", Role.APP, cards, Family.DRA));
        // compute in whole percent (as gpu-core gives it), memory in whole blocks, 1..99 % or memory alone
        Arbitrary<GpuAsk> sliceAsks = Combinators.combine(
                        Arbitraries.integers().between(1, 4),
                        Arbitraries.integers().between(0, 99),
                        Arbitraries.longs().between(1, 320))
                .as((cards, percent, blocks) ->
                        GpuAsk.slice("claim/c/gpu", Role.APP, cards, percent * 10, blocks * BLOCK, Family.DRA));
        return Arbitraries.oneOf(wholeAsks, sliceAsks);
    }

    @Property(tries = 300)
    void aRequestMadeForAnAskIsReadBackAsThatAsk(@ForAll("asks") GpuAsk ask) {
        ResourceClaim claim = new ResourceClaimBuilder()
                .withNewMetadata()
                .withName("c")
                .endMetadata()
                .withNewSpec()
                .withNewDevices()
                .addToRequests(DraAsks.request(ask))
                .endDevices()
                .endSpec()
                .build();

        assertThat(DraAsks.of(claim, BLOCK)).containsExactly(ask);
    }
}
