from avadata.cli.main import main

main()
