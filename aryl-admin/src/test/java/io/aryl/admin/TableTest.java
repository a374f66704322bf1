package io.aryl.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TableTest {
  @Test
  @DisplayName(
      "columns are as wide as their widest cell, two spaces apart, with no trailing blanks")
  void alignsColumns() {
    String t =
        new Table("NODE", "GPUS", "LOANED")
            .row("gpu-inf-3:45454", 8, "yes")
            .row("a", 16, "no")
            .render();
    assertThat(t)
        .isEqualTo(
            """
        NODE             GPUS  LOANED
        gpu-inf-3:45454  8     yes
        a                16    no
        """);
  }

  @Test
  @DisplayName("a null cell prints as -, and a line break inside a cell is flattened")
  void nullsAndLineBreaks() {
    assertThat(new Table("A", "B").row(null, "x\n  y").render()).isEqualTo("A  B\n-  x y\n");
  }

  @Test
  @DisplayName("a row with the wrong number of cells is refused, naming the columns")
  void wrongWidthRefused() {
    assertThatThrownBy(() -> new Table("A", "B").row("only"))
        .hasMessageContaining("needs 2 cells, was 1");
  }

  @Test
  @DisplayName("durations show their two largest units")
  void humanDurations() {
    assertThat(Views.human(0)).isEqualTo("0s");
    assertThat(Views.human(42_999)).isEqualTo("42s");
    assertThat(Views.human(299_000)).isEqualTo("4m59s");
    assertThat(Views.human(7_200_000)).isEqualTo("2h0m");
    assertThat(Views.human(273_600_000)).isEqualTo("3d4h");
  }
}
