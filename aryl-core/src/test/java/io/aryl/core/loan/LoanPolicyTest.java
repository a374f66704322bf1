package io.aryl.core.loan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.stream.Stream;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LoanPolicyTest {
  /** 10 servers of 100 req/s each, 20% headroom, 1 server of margin. */
  private static final LoanPolicy POLICY = new LoanPolicy(100, 0.2, 1);

  @ParameterizedTest(name = "{0} req/s -> {1} servers")
  @MethodSource
  void needs_enough_servers_for_the_rate_plus_headroom(double rate, int expected) {
    assertThat(POLICY.serversNeeded(rate)).isEqualTo(expected);
  }

  static Stream<Arguments> needs_enough_servers_for_the_rate_plus_headroom() {
    return Stream.of(
        Arguments.of(0, 0),
        Arguments.of(1, 1),
        Arguments.of(250, 3), // 300 / 100
        Arguments.of(251, 4),
        Arguments.of(500, 6),
        Arguments.of(834, 11));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void lends_only_servers_beyond_need_and_margin(
      String scenario, double rate, int servers, int expected) {
    assertThat(POLICY.lendable(rate, servers)).isEqualTo(expected);
  }

  static Stream<Arguments> lends_only_servers_beyond_need_and_margin() {
    return Stream.of(
        Arguments.of("lends nothing at peak", 750, 10, 0), // needs 9, margin 1
        Arguments.of("lends nothing above peak", 2000, 10, 0),
        Arguments.of("lends idle servers beyond need and margin", 250, 10, 6), // 10 - 3 - 1
        Arguments.of("lends all but the margin at zero demand", 0, 10, 9),
        Arguments.of("lends nothing from an empty pool", 0, 0, 0),
        Arguments.of("keeps the margin back even when demand leaves one server spare", 700, 10, 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void reclaims_loaned_servers_only_when_the_unlent_ones_fall_short_of_the_need(
      String scenario, double rate, int servers, int loaned, int expected) {
    assertThat(POLICY.toReclaim(rate, servers, loaned)).isEqualTo(expected);
  }

  static Stream<Arguments>
      reclaims_loaned_servers_only_when_the_unlent_ones_fall_short_of_the_need() {
    return Stream.of(
        Arguments.of("reclaims nothing while demand is low", 250, 10, 6, 0), // 4 un-lent cover 3
        Arguments.of("holds steady inside the margin band", 300, 10, 6, 0), // needs 4, 4 un-lent
        Arguments.of("reclaims when demand rises", 500, 10, 6, 2), // needs 6, 4 un-lent
        Arguments.of("reclaims enough for peak demand", 750, 10, 6, 5), // needs 9, 4 un-lent
        Arguments.of("never reclaims more than is loaned", 2000, 10, 3, 3),
        Arguments.of("reclaims nothing when nothing is loaned", 2000, 10, 0, 0));
  }

  @Property
  void after_reclaiming_the_unlent_servers_cover_the_need_unless_all_came_back(
      @ForAll @DoubleRange(min = 0, max = 5000) double rate,
      @ForAll @IntRange(min = 0, max = 50) int servers,
      @ForAll @IntRange(min = 0, max = 50) int loaned) {
    Assume.that(loaned <= servers);

    int back = POLICY.toReclaim(rate, servers, loaned);

    assertThat(back).isBetween(0, loaned);
    if (back < loaned) {
      assertThat(servers - loaned + back).isGreaterThanOrEqualTo(POLICY.serversNeeded(rate));
    }
  }

  @Property
  void never_reclaims_what_it_has_just_lent(
      @ForAll @DoubleRange(min = 0, max = 5000) double rate,
      @ForAll @IntRange(min = 0, max = 50) int servers) {
    int lent = POLICY.lendable(rate, servers);

    assertThat(POLICY.toReclaim(rate, servers, lent)).isZero();
  }

  @Test
  void a_fleet_provisioned_for_its_peak_needs_every_server_at_peak_and_lends_nothing() {
    for (int servers : new int[] {1, 3, 7, 10, 49, 100, 1000}) {
      for (double peak : new double[] {0.3, 1, 17.7, 1000, 123_456.789}) {
        LoanPolicy policy = LoanPolicy.provisionedForPeak(peak, servers, 0.2, 0);

        assertThat(policy.serversNeeded(peak))
            .as("%s servers, peak %s", servers, peak)
            .isEqualTo(servers);
        assertThat(policy.lendable(peak, servers)).isZero();
        assertThat(policy.lendable(peak / 2, servers))
            .isEqualTo(servers - (int) Math.ceil(servers / 2.0));
      }
    }
  }

  @Test
  void provisioned_for_peak_sets_capacity_to_serve_the_peak_with_headroom() {
    LoanPolicy policy = LoanPolicy.provisionedForPeak(1000, 12, 0.2, 2);

    assertThat(policy.capacityPerServer()).isEqualTo(100);
    assertThat(policy.headroom()).isEqualTo(0.2);
    assertThat(policy.safetyMarginServers()).isEqualTo(2);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void refuses_bad_inputs_naming_the_field_and_value(String field, String value, Executable bad) {
    assertThatIllegalArgumentException()
        .isThrownBy(bad::execute)
        .withMessageContaining(field)
        .withMessageContaining(value);
  }

  static Stream<Arguments> refuses_bad_inputs_naming_the_field_and_value() {
    return Stream.of(
        Arguments.of("loan.capacityPerServer", "0.0", (Executable) () -> new LoanPolicy(0, 0.2, 1)),
        Arguments.of(
            "loan.capacityPerServer", "NaN", (Executable) () -> new LoanPolicy(Double.NaN, 0.2, 1)),
        Arguments.of("loan.headroom", "-0.1", (Executable) () -> new LoanPolicy(100, -0.1, 1)),
        Arguments.of(
            "loan.safetyMarginServers", "-1", (Executable) () -> new LoanPolicy(100, 0.2, -1)),
        Arguments.of("inference.rate", "-1.0", (Executable) () -> POLICY.serversNeeded(-1)),
        Arguments.of("inference.rate", "NaN", (Executable) () -> POLICY.lendable(Double.NaN, 10)),
        Arguments.of(
            "inference.rate",
            "Infinity",
            (Executable) () -> POLICY.toReclaim(Double.POSITIVE_INFINITY, 10, 1)),
        Arguments.of("inference.servers", "-1", (Executable) () -> POLICY.lendable(10, -1)),
        Arguments.of("loan.loanedNow", "-2", (Executable) () -> POLICY.toReclaim(10, 10, -2)),
        Arguments.of("loan.loanedNow", "11", (Executable) () -> POLICY.toReclaim(10, 10, 11)),
        Arguments.of(
            "inference.peakRate",
            "0.0",
            (Executable) () -> LoanPolicy.provisionedForPeak(0, 10, 0.2, 1)),
        Arguments.of(
            "inference.servers",
            "0",
            (Executable) () -> LoanPolicy.provisionedForPeak(100, 0, 0.2, 1)),
        Arguments.of(
            "loan.headroom",
            "-1.0",
            (Executable) () -> LoanPolicy.provisionedForPeak(100, 10, -1, 1)),
        Arguments.of(
            "loan.safetyMarginServers",
            "-3",
            (Executable) () -> LoanPolicy.provisionedForPeak(100, 10, 0.2, -3)));
  }
}
