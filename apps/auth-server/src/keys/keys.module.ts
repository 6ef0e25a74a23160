import { Module } from '@nestjs/common';
import { JwksController } from './jwks.controller';
import { KeyPublications } from './key-publications.repository';
import { SigningKeysService } from './signing-keys.service';

/** Needs the global DatabaseModule (signing_key_publications) and AUTH_CONFIG. */
@Module({ controllers: [JwksController], providers: [KeyPublications, SigningKeysService], exports: [SigningKeysService] })
export class KeysModule {}
