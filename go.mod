module github.com/augur-dev/augur

go 1.26
