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
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/nictune)

# dpkg keeps local edits of a conffile across upgrades instead of overwriting them.
file(WRITE ${PROJECT_BINARY_DIR}/debian/conffiles "/etc/nictune/nictuned.flags\n")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME nictune)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "nictune maintainers <nictune@localhost>")
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
# Library dependencies (libbpf, Abseil, SQLite, CivetWeb, libsystemd, ...) as dpkg-shlibdeps
# finds them in the binaries, appended to the one the maintainer scripts need:
# deb-systemd-helper enables the unit even where systemd is not running.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "init-system-helpers")
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
