# Installing Precis like any desktop application: install() rules for everything but
# the executable (app/CMakeLists.txt installs that) and the CPack .deb.
#
#   cmake --build build --target package      ->  build/precis_<version>_<arch>.deb
#
# Included from the top-level CMakeLists.txt when the application is built.
include(GNUInstallDirs)

# The AppStream component id (reverse DNS); the metainfo file is named after it. The
# desktop entry stays precis.desktop: the GUI calls setDesktopFileName("precis").
set(PRECIS_APP_ID "org.precis.Precis")
# Date of the release named by project(VERSION), for the AppStream <release> entry.
# Bump it together with the version.
set(PRECIS_RELEASE_DATE "2026-11-21")
set(PRECIS_PACKAGE_MAINTAINER "Precis maintainers <maintainers@users.noreply.a-seed-738f8f33.example>"
  CACHE STRING "Maintainer field of the .deb")

set(_pkg_src ${CMAKE_SOURCE_DIR}/packaging)
set(_pkg_out ${CMAKE_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${_pkg_out})

# --- desktop entry and AppStream metadata ------------------------------------------
install(FILES ${_pkg_src}/precis.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
configure_file(${_pkg_src}/precis.metainfo.xml.in ${_pkg_out}/${PRECIS_APP_ID}.metainfo.xml @ONLY)
install(FILES ${_pkg_out}/${PRECIS_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)

# --- man page (written by hand in roff, compressed as Debian ships man pages) ---------
find_program(PRECIS_GZIP gzip REQUIRED)
add_custom_command(OUTPUT ${_pkg_out}/precis.1.gz
  COMMAND ${PRECIS_GZIP} -9 -n -c ${_pkg_src}/precis.1 > ${_pkg_out}/precis.1.gz
  DEPENDS ${_pkg_src}/precis.1
  COMMENT "Compressing the man page")
add_custom_target(precis_man_page ALL DEPENDS ${_pkg_out}/precis.1.gz)
install(FILES ${_pkg_out}/precis.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# --- icons in the hicolor theme: the SVG, and a PNG per size ---------------------------
# resources/icons/precis-<size>.png where the icon ships one (the app uses them too);
# the other sizes are rendered from the SVG at build time with Qt's own SVG engine, the
# one that draws the icon inside the app.
set(PRECIS_ICON_SVG ${CMAKE_SOURCE_DIR}/resources/icons/precis.svg)
set(PRECIS_ICON_SIZES 16 22 24 32 48 64 128 256 512)
if(EXISTS ${PRECIS_ICON_SVG})
  install(FILES ${PRECIS_ICON_SVG} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  set(_rendered_sizes)
  set(_rendered_pngs)
  foreach(size IN LISTS PRECIS_ICON_SIZES)
    set(_shipped ${CMAKE_SOURCE_DIR}/resources/icons/precis-${size}.png)
    set(_dest ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps)
    if(EXISTS ${_shipped})
      install(FILES ${_shipped} DESTINATION ${_dest} RENAME precis.png)
    else()
      list(APPEND _rendered_sizes ${size})
      list(APPEND _rendered_pngs ${_pkg_out}/icons/${size}x${size}/apps/precis.png)
      install(FILES ${_pkg_out}/icons/${size}x${size}/apps/precis.png DESTINATION ${_dest})
    endif()
  endforeach()
  if(_rendered_sizes)
    find_package(Qt6 REQUIRED COMPONENTS Gui Svg)
    add_executable(precis_render_icons ${_pkg_src}/tools/render_icons.cpp)
    target_link_libraries(precis_render_icons PRIVATE Qt6::Gui Qt6::Svg)
    set_target_properties(precis_render_icons PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
    add_custom_command(OUTPUT ${_rendered_pngs}
      COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
              $<TARGET_FILE:precis_render_icons> ${PRECIS_ICON_SVG} ${_pkg_out}/icons ${_rendered_sizes}
      DEPENDS precis_render_icons ${PRECIS_ICON_SVG}
      COMMENT "Rendering the application icon to PNG (${_rendered_sizes})")
    add_custom_target(precis_icons ALL DEPENDS ${_rendered_pngs})
  endif()
else()
  message(WARNING "packaging: ${PRECIS_ICON_SVG} not found; the package will have no icon")
endif()

# --- bundled data: sample documents and the default model (when one ships) -----------
# app/paths.cpp finds them in <prefix>/share/precis, next to the executable's prefix.
if(IS_DIRECTORY ${CMAKE_SOURCE_DIR}/resources/samples)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/resources/samples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/precis/samples
    PATTERN ".*" EXCLUDE)
endif()
# The sample essay as a PDF, made at build time by ui/ (precis_sample_pdf).
if(TARGET precis_sample_pdf)
  install(DIRECTORY ${CMAKE_BINARY_DIR}/samples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/precis/samples
    OPTIONAL FILES_MATCHING PATTERN "*.pdf")
endif()
if(IS_DIRECTORY ${CMAKE_SOURCE_DIR}/resources/models)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/resources/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/precis/models
    PATTERN ".*" EXCLUDE)
endif()

# The user guide: compiled into the program for Help > User Guide (resources/precis.qrc)
# and installed as a file too, for reading in a browser.
install(FILES ${CMAKE_SOURCE_DIR}/resources/help/user-guide.html DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Which icons ship as PNG and whether a model folder exists are decided here, at
# configure time: look again when those folders change.
foreach(_dir resources resources/icons)
  if(IS_DIRECTORY ${CMAKE_SOURCE_DIR}/${_dir})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${_dir})
  endif()
endforeach()

# --- the .deb ----------------------------------------------------------------------
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "precis")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "Precis")
set(CPACK_PACKAGE_CONTACT "${PRECIS_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "summarize and classify long documents on your own machine")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "precis")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # precis_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE "")
set(CPACK_DEBIAN_PACKAGE_SECTION "text")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_COMPRESSION_TYPE "xz")
# Extended description, in paragraphs: CPack puts the summary line above it, indents
# each line by one space and turns blank lines into " .".
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Precis summarizes and classifies PDFs, plain text and Markdown documents
locally; nothing leaves the computer. It runs BART and LSG-BART models
(Local, Sparse and Global attention) with its own inference engine, so one
pass reads 4,096 to 16,384 tokens.

The package holds the desktop application, the precis command line
(summarize, classify, batch, library, convert, inspect, bench, ...) and
sample documents. No pretrained model ships yet: pick one from the
catalog (precis model catalog, precis model download REPO, or Settings >
Download in the application), or use a HuggingFace BART or LSG-BART
checkpoint folder.

The engine is built for x86-64-v3 processors (AVX2 and FMA).")
# Depends: computed by dpkg-shlibdeps from the libraries the executable links
# (dpkg-dev).
find_program(PRECIS_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(PRECIS_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  message(WARNING "packaging: dpkg-shlibdeps not found (install dpkg-dev); the .deb will lack library Depends")
endif()
# dpkg-shlibdeps sees only what is linked; Qt loads these as plugins: the xcb platform
# plugin and the SVG icon engine that draws the window icon.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, libqt6svg6")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-gtk-platformtheme")
# `package_source`: the source tree alone, without build folders or training outputs.
set(CPACK_SOURCE_GENERATOR "TXZ")
set(CPACK_SOURCE_PACKAGE_FILE_NAME "precis-${PROJECT_VERSION}")
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "/tools/train/out/" "__pycache__")
include(CPack)
