# Installation (cmake --install build --prefix P), the usual HPC layout:
#   P/bin/sleighsweep                        the engine
#   P/share/sleighsweep/jobs/                sweep.sbatch, README.md, examples/
#   P/share/sleighsweep/analysis/            the analysis scripts (command lines
#                                            over the package), runnable in place
#   P/lib/python3/dist-packages/sleighsweep/ the Python package (import
#                                            sleighsweep; the scripts find it
#                                            there through _bootstrap.py)
#   P/share/doc/sleighsweep/                 README.md, LICENSE, docs/
# tests/test_install.sh installs into a temporary prefix and runs from there.
include(GNUInstallDirs)
set(SSW_SHARE ${CMAKE_INSTALL_DATADIR}/sleighsweep)

install(TARGETS sleighsweep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(PROGRAMS jobs/sweep.sbatch DESTINATION ${SSW_SHARE}/jobs)
install(FILES jobs/README.md DESTINATION ${SSW_SHARE}/jobs)
install(DIRECTORY jobs/examples/ DESTINATION ${SSW_SHARE}/jobs/examples
        FILES_MATCHING PATTERN "*.ini")

# Scripts with a #! line are installed executable; _bootstrap.py finds the
# package in P/lib/python3/dist-packages (on Debian's python3 path when P
# is /usr, else through the scripts or PYTHONPATH).
install(PROGRAMS analysis/phase_diagram.py analysis/trajectory.py
                 analysis/validate.py analysis/portrait.py analysis/gallery.py
                 analysis/figures.sh
        DESTINATION ${SSW_SHARE}/analysis)
install(FILES analysis/_bootstrap.py analysis/README.md
        DESTINATION ${SSW_SHARE}/analysis)
install(DIRECTORY python/sleighsweep
        DESTINATION lib/python3/dist-packages
        FILES_MATCHING PATTERN "*.py")

# README.md at the top of the doc directory with docs/ below it, so the
# README's links into docs/ still resolve.
install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md")
