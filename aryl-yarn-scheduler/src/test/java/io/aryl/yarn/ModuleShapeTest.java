package io.aryl.yarn;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The module's shape, as its README draws it: the round engine and everything it decides with are
 * plain Java (no Hadoop, no ZooKeeper client), and the packages depend on each other top-down,
 * without a cycle:
 *
 * <pre>
 *   io.aryl.yarn      ArylScheduler: the Capacity Scheduler's hooks and the lifecycle
 *   web               the REST resource and the page
 *   rm                the adapter: reads the ResourceManager, runs the engine, carries its actions out
 *   state             the stores (Hadoop file system, ZooKeeper) and the stored records
 *   engine            the round as a function: RmView in, promises and actions out
 *   round, reclaim    the snapshot for aryl-core, the reclaims' bookkeeping
 *   conf              the settings
 * </pre>
 */
@DisplayName("The scheduler module's shape: a plain-Java engine, packages top-down without cycles")
class ModuleShapeTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.aryl.yarn");

  @Test
  @DisplayName(
      "the engine, the snapshot, the reclaims and the settings use no Hadoop and no ZooKeeper client")
  void engineIsPlainJava() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAnyPackage(
                "io.aryl.yarn.engine..",
                "io.aryl.yarn.round..",
                "io.aryl.yarn.reclaim..",
                "io.aryl.yarn.conf..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                "org.apache.hadoop..", "org.apache.curator..", "org.apache.zookeeper..")
            .because(
                "every decision a round takes is tested without a ResourceManager, and the simulator's is the same"
                    + " code");
    rule.check(MAIN);
  }

  @Test
  @DisplayName("the stored records and the state they form use no Hadoop: only the stores do")
  void storedStateIsPlainJava() {
    noClasses()
        .that()
        .resideInAPackage("io.aryl.yarn.state")
        .and()
        .haveNameNotMatching(".*\\.(FsStateStore|StateStores|SectionFiles|ZkStateStore)(\\$.*)?")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.apache.hadoop..", "org.apache.curator..", "org.apache.zookeeper..")
        .check(MAIN);
  }

  @Test
  @DisplayName("the packages depend on each other top-down")
  void layers() {
    layeredArchitecture()
        .consideringOnlyDependenciesInAnyPackage("io.aryl.yarn..")
        .layer("Scheduler")
        .definedBy("io.aryl.yarn")
        .layer("Web")
        .definedBy("io.aryl.yarn.web..")
        .layer("Adapter")
        .definedBy("io.aryl.yarn.rm..")
        .layer("State")
        .definedBy("io.aryl.yarn.state..")
        .layer("Engine")
        .definedBy("io.aryl.yarn.engine..")
        .layer("Model")
        .definedBy("io.aryl.yarn.round..", "io.aryl.yarn.reclaim..")
        .layer("Conf")
        .definedBy("io.aryl.yarn.conf..")
        .whereLayer("Scheduler")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Web")
        .mayOnlyBeAccessedByLayers("Scheduler")
        .whereLayer("Adapter")
        .mayOnlyBeAccessedByLayers("Scheduler", "Web")
        .whereLayer("Engine")
        .mayOnlyBeAccessedByLayers("Scheduler", "Web", "Adapter")
        .whereLayer("State")
        .mayOnlyBeAccessedByLayers("Scheduler", "Web", "Adapter", "Engine", "Model")
        .whereLayer("Model")
        .mayOnlyBeAccessedByLayers("Scheduler", "Web", "Adapter", "Engine")
        .check(MAIN);
  }

  @Test
  @DisplayName("no package cycle")
  void noCycles() {
    slices().matching("io.aryl.yarn.(*)..").should().beFreeOfCycles().check(MAIN);
  }
}
