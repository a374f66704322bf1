package io.aryl.core.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("ServerTable: dense arrays over one snapshot's servers")
class ServerTableTest {
  static final GpuType H100 = GpuType.of("H100", 2.0);
  static final GpuType A100 = GpuType.of("A100", 1.0);
  static final GpuType L40 = GpuType.of("L40", 1.0); // as fast as A100; "A100" < "L40" by name
  static final GpuType T4 = GpuType.of("T4", 0.5);

  /** Types, fastest first then by name: H100 (0), A100 (1), L40 (2), T4 (3). */
  static final ServerTable FOUR_TYPES =
      new ServerTable(
          List.of(
              Server.training("a", T4, 4), Server.training("b", L40, 8),
              Server.training("c", A100, 8), Server.training("d", H100, 8)));

  @Test
  void is_of_the_same_servers_only() {
    List<Server> same =
        List.of(
            Server.training("a", T4, 4),
            Server.training("b", L40, 8),
            Server.training("c", A100, 8),
            Server.training("d", H100, 8));

    assertThat(FOUR_TYPES.isOf(same)).isTrue();
    assertThat(FOUR_TYPES.isOf(same.subList(0, 3))).isFalse();
    assertThat(
            FOUR_TYPES.isOf(
                List.of(
                    Server.training("a", T4, 4),
                    Server.training("b", L40, 8),
                    Server.training("c", A100, 8),
                    Server.training("d", H100, 8).withFenced(true))))
        .isFalse();
  }

  @Test
  void servers_are_indexed_in_the_given_id_order_with_their_attributes() {
    ServerTable t =
        new ServerTable(
            List.of(
                Server.training("n01", A100, 8),
                Server.loaned("n02", T4, 4),
                new Server("n03", A100, 2, Pool.TRAINING, false, true), // fenced
                Server.inference("n04", T4, 4))); // not lent
    assertThat(t.size()).isEqualTo(4);
    assertThat(List.of(t.id(0), t.id(1), t.id(2), t.id(3)))
        .containsExactly("n01", "n02", "n03", "n04");
    assertThat(List.of(t.indexOf("n01"), t.indexOf("n02"), t.indexOf("n03"), t.indexOf("n04")))
        .containsExactly(0, 1, 2, 3);
    assertThat(t.server(1)).isEqualTo(Server.loaned("n02", T4, 4));
    assertThat(new int[] {t.gpus(0), t.gpus(1), t.gpus(2), t.gpus(3)}).containsExactly(8, 4, 2, 4);
    assertThat(new boolean[] {t.loaned(0), t.loaned(1), t.loaned(2), t.loaned(3)})
        .containsExactly(false, true, false, false);
    // open = may take new training workers: not fenced, and training or lent
    assertThat(new boolean[] {t.open(0), t.open(1), t.open(2), t.open(3)})
        .containsExactly(true, true, false, false);
    assertThat(new int[] {t.typeIndex(0), t.typeIndex(1), t.typeIndex(2), t.typeIndex(3)})
        .containsExactly(0, 1, 0, 1);
    assertThat(t.maxGpus()).isEqualTo(8);
  }

  @Test
  void types_come_fastest_first_then_by_name_each_once() {
    assertThat(FOUR_TYPES.types()).containsExactly(H100, A100, L40, T4);
    // a: T4, b: L40, c: A100, d: H100
    assertThat(
            new int[] {
              FOUR_TYPES.typeIndex(0),
              FOUR_TYPES.typeIndex(1),
              FOUR_TYPES.typeIndex(2),
              FOUR_TYPES.typeIndex(3)
            })
        .containsExactly(3, 2, 1, 0);

    ServerTable twoOfOne =
        new ServerTable(List.of(Server.training("a", T4, 4), Server.training("b", T4, 4)));
    assertThat(twoOfOne.types()).containsExactly(T4);
  }

  @Test
  void an_empty_table_has_no_servers_types_or_GPUs() {
    ServerTable t = new ServerTable(List.of());
    assertThat(t.size()).isZero();
    assertThat(t.types()).isEmpty();
    assertThat(t.maxGpus()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void speed_tiers_group_allowed_types_of_equal_speed_fastest_tier_first(
      String scenario, boolean[] allowed, List<boolean[]> expected) {
    assertThat(FOUR_TYPES.speedTiers(allowed)).containsExactlyElementsOf(expected);
  }

  static Stream<Arguments> speed_tiers_group_allowed_types_of_equal_speed_fastest_tier_first() {
    //                   H100   A100   L40    T4
    return Stream.of(
        Arguments.of(
            "all types: H100 | A100+L40 | T4",
            bools(1, 1, 1, 1),
            List.of(bools(1, 0, 0, 0), bools(0, 1, 1, 0), bools(0, 0, 0, 1))),
        Arguments.of(
            "without A100: L40 is a tier alone",
            bools(1, 0, 1, 1),
            List.of(bools(1, 0, 0, 0), bools(0, 0, 1, 0), bools(0, 0, 0, 1))),
        Arguments.of("A100 and L40 only: one tier", bools(0, 1, 1, 0), List.of(bools(0, 1, 1, 0))),
        Arguments.of(
            "H100 and T4: two tiers",
            bools(1, 0, 0, 1),
            List.of(bools(1, 0, 0, 0), bools(0, 0, 0, 1))),
        Arguments.of("nothing allowed: no tier", bools(0, 0, 0, 0), List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void of_speed_keeps_the_allowed_types_of_exactly_the_given_speed(
      String scenario, boolean[] allowed, double speed, boolean[] expected) {
    assertThat(FOUR_TYPES.ofSpeed(allowed, speed)).containsExactly(expected);
  }

  static Stream<Arguments> of_speed_keeps_the_allowed_types_of_exactly_the_given_speed() {
    //                   H100   A100   L40    T4
    return Stream.of(
        Arguments.of(
            "speed 1.0 keeps the tier of equal speeds", bools(1, 1, 1, 1), 1.0, bools(0, 1, 1, 0)),
        Arguments.of("speed 0.5 keeps the slowest only", bools(1, 1, 1, 1), 0.5, bools(0, 0, 0, 1)),
        Arguments.of("a speed no type has keeps none", bools(1, 1, 1, 1), 0.7, bools(0, 0, 0, 0)),
        Arguments.of(
            "a disallowed type of that speed stays out",
            bools(0, 0, 1, 1),
            1.0,
            bools(0, 0, 1, 0)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void speed_of_a_type_set_is_its_fastest_type(
      String scenario, boolean[] typeSet, double expected) {
    assertThat(FOUR_TYPES.speedOf(typeSet)).isEqualTo(expected);
  }

  static Stream<Arguments> speed_of_a_type_set_is_its_fastest_type() {
    //                   H100   A100   L40    T4
    return Stream.of(
        Arguments.of("all types: H100's", bools(1, 1, 1, 1), 2.0),
        Arguments.of("A100 and T4: A100's", bools(0, 1, 0, 1), 1.0),
        Arguments.of("T4 alone", bools(0, 0, 0, 1), 0.5),
        Arguments.of("no type: 0", bools(0, 0, 0, 0), 0.0));
  }

  @Test
  void a_type_set_as_a_mask_has_one_bit_per_type() {
    assertThat(ServerTable.mask(bools(1, 0, 1, 1))).isEqualTo(0b1101L);
    assertThat(ServerTable.mask(FOUR_TYPES.allTypes())).isEqualTo(0b1111L);
    assertThat(ServerTable.mask(bools(0, 0, 0, 0))).isZero();
  }

  @ParameterizedTest(name = "allowed {0} -> {1}")
  @MethodSource
  void allowed_types_of_a_job_follow_its_type_names_and_an_empty_set_allows_any(
      List<String> names, boolean[] expected) {
    Job job = Job.builder("j").remainingS(60).allowedGpuTypes(names.toArray(String[]::new)).build();
    assertThat(FOUR_TYPES.allowedTypes(job)).containsExactly(expected);
  }

  static Stream<Arguments>
      allowed_types_of_a_job_follow_its_type_names_and_an_empty_set_allows_any() {
    //                                                   H100   A100   L40    T4
    return Stream.of(
        Arguments.of(List.of(), bools(1, 1, 1, 1)),
        Arguments.of(List.of("T4"), bools(0, 0, 0, 1)),
        Arguments.of(List.of("A100", "H100"), bools(1, 1, 0, 0)),
        Arguments.of(List.of("V100"), bools(0, 0, 0, 0))); // a type no server has
  }

  @Test
  void index_of_an_unknown_server_is_refused_naming_it() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> FOUR_TYPES.indexOf("zz"))
        .withMessage("unknown server 'zz'");
  }

  @Test
  void the_table_keeps_its_own_copy_of_the_server_list() {
    List<Server> servers = new ArrayList<>(List.of(Server.training("a", A100, 8)));
    ServerTable t = new ServerTable(servers);
    servers.set(0, Server.training("z", T4, 4)); // the caller's list changes afterwards ...
    servers.add(Server.training("b", A100, 8));
    assertThat(t.size()).isEqualTo(1); // ... the table does not
    assertThat(t.server(0)).isEqualTo(Server.training("a", A100, 8));
    assertThat(t.id(0)).isEqualTo("a");
    assertThatIllegalArgumentException().isThrownBy(() -> t.indexOf("b"));
  }

  private static boolean[] bools(int... bits) {
    boolean[] out = new boolean[bits.length];
    for (int i = 0; i < bits.length; i++) {
      out[i] = bits[i] != 0;
    }
    return out;
  }
}
