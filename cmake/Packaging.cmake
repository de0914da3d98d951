# SPDX-License-Identifier: Apache-2.0
# The Debian package (cpack -G DEB in the build directory, or deploy/package.sh): the daemon and
# the CLI, the systemd unit, the default flagfile as a conffile, the Grafana dashboards with their
# provisioning files, and the Prometheus scrape config and rules.

# The binaries come with their own install() rules (agent/CMakeLists.txt: nictuned to sbin, the
# nictune CLI to bin).

# Absolute destinations: systemd and dpkg look for these exact paths, whatever the prefix.
install(FILES ${PROJECT_SOURCE_DIR}/deploy/nictuned.service DESTINATION /lib/systemd/system)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/nictuned.flags DESTINATION /etc/nictune)

file(GLOB NICTUNE_DASHBOARDS ${PROJECT_SOURCE_DIR}/dashboards/*.json)
install(FILES ${NICTUNE_DASHBOARDS} DESTINATION share/nictune/dashboards)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/dashboards/provisioning/
  DESTINATION share/nictune/grafana/provisioning FILES_MATCHING PATTERN "*.yaml")
install(FILES
  ${PROJECT_SOURCE_DIR}/deploy/prometheus/prometheus.yml
  ${PROJECT_SOURCE_DIR}/deploy/prometheus/nictune_rules.yml
  ${PROJECT_SOURCE_DIR}/deploy/prometheus/nictune_rules_test.yml
  DESTINATION share/nictune/prometheus)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/k8s/daemonset.yaml DESTINATION share/nictune/k8s)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/deploy/debian/copyright
  DESTINATION share/doc/nictune)
# bash loads a command's completion by its name: one script serves both.
install(FILES ${PROJECT_SOURCE_DIR}/deploy/completion/nictune.bash
  DESTINATION share/bash-completion/completions RENAME nictune)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/completion/nictune.bash
  DESTINATION share/bash-completion/completions RENAME nictuned)

# The package's maintainer, in the control file and the changelog. The project has no mail
# domain of its own: .invalid (RFC 2606) says so rather than pretending to one.
set(NICTUNE_MAINTAINER "nictune maintainers <maintainers@nictune.invalid>")
# A native package's changelog, compressed as Debian policy wants it (gzip -9n: no name, no time,
# so the package builds the same twice).
configure_file(${PROJECT_SOURCE_DIR}/deploy/debian/changelog.in ${PROJECT_BINARY_DIR}/debian/changelog
  @ONLY)
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/debian/changelog.gz
  COMMAND gzip -9n -c ${PROJECT_BINARY_DIR}/debian/changelog > ${PROJECT_BINARY_DIR}/debian/changelog.gz
  DEPENDS ${PROJECT_BINARY_DIR}/debian/changelog VERBATIM)
add_custom_target(nictune_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/debian/changelog.gz)
install(FILES ${PROJECT_BINARY_DIR}/debian/changelog.gz DESTINATION share/doc/nictune)

# Manual pages nictuned(8) and nictune(8), written from the built binaries' own help text
# (deploy/man/help_to_man.py) into the frames beside it, so that they say what the binaries say.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
foreach(page IN ITEMS nictuned nictune)
  if(page STREQUAL "nictuned")
    set(kind agent)
  else()
    set(kind cli)
  endif()
  set(out ${PROJECT_BINARY_DIR}/man/${page}.8.gz)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/deploy/man/help_to_man.py ${kind}
      $<TARGET_FILE:${page}> ${PROJECT_SOURCE_DIR}/deploy/man/${page}.8.in ${PROJECT_VERSION}
      > ${PROJECT_BINARY_DIR}/man/${page}.8
    COMMAND gzip -9n -f ${PROJECT_BINARY_DIR}/man/${page}.8
    DEPENDS ${page} ${PROJECT_SOURCE_DIR}/deploy/man/help_to_man.py
      ${PROJECT_SOURCE_DIR}/deploy/man/${page}.8.in
    VERBATIM)
  list(APPEND NICTUNE_MAN_PAGES ${out})
endforeach()
add_custom_target(nictune_man_pages ALL DEPENDS ${NICTUNE_MAN_PAGES})
install(FILES ${NICTUNE_MAN_PAGES} DESTINATION share/man/man8)

# dpkg keeps local edits of a conffile across upgrades instead of overwriting them.
file(WRITE ${PROJECT_BINARY_DIR}/debian/conffiles "/etc/nictune/nictuned.flags\n")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME nictune)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${NICTUNE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "NIC interrupt mitigation agent (IRQs, NAPI, socket drops)")
# Lines of at most 80 columns: dpkg shows them as written.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "nictuned measures, per NIC queue and CPU, interrupt rates, NAPI poll work,\n"
  "softirq time, socket buffer fill and drops with eBPF tracepoints (falling\n"
  "back to procfs), recommends interrupt coalescing, NAPI budget and socket\n"
  "buffer settings, and in apply mode changes them with a journal that survives\n"
  "crashes. Ships Grafana dashboards and Prometheus rules.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Library dependencies (libbpf, Abseil, SQLite, libmicrohttpd, libsystemd, ...) as dpkg-shlibdeps
# finds them in the binaries, appended to the one the maintainer scripts need:
# deb-systemd-helper enables the unit even where systemd is not running.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "init-system-helpers (>= 1.54)")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The debug information stays in the build directory.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${PROJECT_BINARY_DIR}/debian/conffiles
  ${PROJECT_SOURCE_DIR}/deploy/debian/postinst
  ${PROJECT_SOURCE_DIR}/deploy/debian/prerm
  ${PROJECT_SOURCE_DIR}/deploy/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
